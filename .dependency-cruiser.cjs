// The layers of app/ (docs/architecture.md, "Layers and the dependency rules"), checked by
// dependency-cruiser in `npm run lint` (`depcruise app`). From the bottom, a layer may import the
// layers below it and never one above. test/lint/layers.test.ts shows that each rule below reports
// a file that breaks it. Type-only imports count: a type is a dependency too.
// (Only app/main/electron and app/preload may import `electron`: eslint.config.js checks that,
// for tests and scripts as well.)

const SERVICES = "(sessions|permissions|settings|mcp|checkpoints)";
const CAPABILITIES = "(providers|tools|sandbox|workers)";
const COMPOSITION = "app/main/app-services[.]ts$";
const SHELLS = "app/main/(electron|host)/";

/** @param {string} name @param {string} comment @param {object} from @param {object} to */
const rule = (name, comment, from, to) => ({ name, comment, severity: "error", from, to });

/** @type {import('dependency-cruiser').IConfiguration} */
module.exports = {
  forbidden: [
    rule("no-cycles", "Modules import each other in a cycle.", {}, { circular: true }),
    rule(
      "shared-imports-nothing-of-the-project",
      "app/shared is the bottom layer: types, schemas and helpers for every side; it imports nothing of main, the preload or the renderer.",
      { path: "^app/shared/" },
      { path: "^app/(main|renderer|preload)/" },
    ),
    rule(
      "loop-imports-only-shared",
      "The loop is a package of its own: it imports app/shared and nothing else of the project.",
      { path: "^app/main/loop/" },
      { path: "^app/(main|renderer|preload)/", pathNot: "^app/main/loop/" },
    ),
    rule(
      "loop-through-its-index",
      "Outside the loop, import it through app/main/loop/index.ts only.",
      { path: "^app/", pathNot: "^app/main/loop/" },
      { path: "^app/main/loop/", pathNot: "^app/main/loop/index[.]ts$" },
    ),
    rule(
      "providers-and-tools-apart",
      "Providers (the model's side) and the tools group (tools, sandbox, workers) do not import each other.",
      { path: "^app/main/providers/" },
      { path: `^app/main/(tools|sandbox|workers)/` },
    ),
    rule(
      "tools-and-providers-apart",
      "Providers (the model's side) and the tools group (tools, sandbox, workers) do not import each other.",
      { path: `^app/main/(tools|sandbox|workers)/` },
      { path: "^app/main/providers/" },
    ),
    rule(
      "capabilities-below-the-store",
      "Providers and the tools group import only the loop and app/shared.",
      { path: `^app/main/${CAPABILITIES}/` },
      { path: [`^app/main/(store|ipc)/`, `^app/main/${SERVICES}/`, COMPOSITION, `^${SHELLS}`] },
    ),
    rule(
      "store-below-the-services",
      "The store imports capabilities, the loop and app/shared, nothing above.",
      { path: "^app/main/store/" },
      { path: [`^app/main/ipc/`, `^app/main/${SERVICES}/`, COMPOSITION, `^${SHELLS}`] },
    ),
    rule(
      "services-do-not-import-each-other",
      "A service declares what it needs of another as a port of its own; app-services.ts passes the other in.",
      { path: `^app/main/${SERVICES}/` },
      { path: `^app/main/${SERVICES}/`, pathNot: "^app/main/$1/" },
    ),
    rule(
      "services-know-nothing-of-ipc",
      "Services throw ServiceError (app/shared/errors.ts) and publish through a port; the router and the event hub are IPC's.",
      { path: `^app/main/${SERVICES}/` },
      { path: [`^app/main/ipc/`, COMPOSITION, `^${SHELLS}`] },
    ),
    rule(
      "ipc-below-the-composition",
      "The IPC layer (router, event hub, batcher) imports services and below, never the composition or the shells.",
      { path: "^app/main/ipc/" },
      { path: [COMPOSITION, `^${SHELLS}`] },
    ),
    rule("composition-below-the-shells", "app-services.ts is built by the shells, and never imports them.", { path: COMPOSITION }, { path: `^${SHELLS}` }),
    rule(
      "shells-apart",
      "The Electron shell and the headless host do not import each other.",
      { path: "^app/main/(electron|host)/" },
      { path: "^app/main/(electron|host)/", pathNot: "^app/main/$1/" },
    ),
    rule(
      "main-never-imports-the-renderer-side",
      "The main process imports neither the renderer nor the preload: they talk through the IPC contract in app/shared.",
      { path: "^app/main/" },
      { path: "^app/(renderer|preload)/" },
    ),
    rule(
      "renderer-imports-only-shared",
      "The renderer imports app/shared (and its npm packages), never the main process or the preload.",
      { path: "^app/renderer/" },
      { path: "^app/(main|preload)/" },
    ),
    rule(
      "preload-imports-only-shared",
      "The preload imports app/shared (and electron), never the main process or the renderer.",
      { path: "^app/preload/" },
      { path: "^app/(main|renderer)/" },
    ),
  ],
  options: {
    doNotFollow: { path: "node_modules" },
    exclude: { path: "(^|/)node_modules/" },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: "tsconfig.node.json" },
    enhancedResolveOptions: { extensions: [".ts", ".tsx", ".js", ".mjs", ".cjs", ".json"] },
  },
};
