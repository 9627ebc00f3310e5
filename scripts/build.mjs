// Builds everything the app runs, into out/:
//   out/main/index.cjs     Electron main process (esbuild; CommonJS, like Electron's own loader)
//   out/preload/index.cjs  the preload, one CommonJS file as the sandbox requires
//   out/host/index.mjs     the headless host (`npm run serve`)
//   out/{main,host}/compute-worker.cjs  the compute pool's worker thread, beside each bundle
//                          (app/main/workers/compute-pool.ts looks for it there)
//   out/{main,host}/snapshot-process.cjs  the first checkpoint's process, beside each bundle
//                          (app/main/workers/snapshot-client.ts looks for it there)
//   out/main/sdk-{anthropic,openai}.cjs, out/host/chunk-*.mjs  the provider SDKs, loaded on
//                          first use (app/main/providers/sdk.ts), so start-up does not parse them
//   out/main/mcp-sdk.cjs, out/host/mcp-sdk-modules-*.mjs  the MCP SDK and what a connection needs
//                          with it, loaded at the first MCP server start (app/main/mcp/mcp-sdk.ts)
//   out/{main,host}/native/pty_reader.node  the terminal reader (app/main/tools/pty-reader.ts),
//                          built by scripts/build-native.mjs at install
//   out/renderer/          the React renderer (Vite)
//   out/main/wasm/, out/host/wasm/  the bash grammar (web-tree-sitter + tree-sitter-bash, WebAssembly),
//                          found beside the bundle at run time (app/main/permissions/shell-parser.ts)
// Only the native modules (better-sqlite3, node-pty, the terminal reader) and electron stay outside the bundles.
// Usage: node scripts/build.mjs [--no-renderer] [--out DIR]   (DIR instead of out/, for tests)
// The Node.js version check comes first: nothing else may load on a Node that is too old.
import "./check-node.mjs";
import { build as esbuild } from "esbuild";
import { build as viteBuild } from "vite";
import { spawnSync } from "node:child_process";
import { copyFileSync, existsSync, mkdirSync } from "node:fs";
import { createRequire } from "node:module";
import { isAbsolute } from "node:path";
import { fileURLToPath } from "node:url";

const root = fileURLToPath(new URL("..", import.meta.url));
const outFlag = process.argv.indexOf("--out");
const out = outFlag > 0 ? process.argv[outFlag + 1] : "out";
const native = ["electron", "better-sqlite3", "node-pty"];
// The provider SDKs as files of their own. The main bundle is CommonJS, where esbuild cannot split
// code: a dynamic import() of a bundled module would still put (and parse) it in index.cjs. So the
// SDK imports in app/main/providers/sdk.ts are made external, pointing at bundles built here. The
// host is ESM, where esbuild's own splitting puts them in chunks.
const SDKS = { "@anthropic-ai/sdk": "sdk-anthropic.cjs", openai: "sdk-openai.cjs" };
// The import() in sdk.ts becomes a small module that require()s the file when called (a kept
// import() would load it as ESM, where `default` is the whole exports object, and not from asar).
// The MCP side the same way: its dynamic import of ./mcp-sdk-modules.ts (all of the SDK a
// connection uses) becomes a require of out/main/mcp-sdk.cjs, whose exports are the module's.
const MCP_SDK = "mcp-sdk.cjs";
const lazySdks = {
  name: "lazy-sdks",
  setup(b) {
    b.onResolve({ filter: /^(@anthropic-ai\/sdk|openai)$/ }, (args) =>
      args.kind === "dynamic-import" && args.importer.endsWith("sdk.ts") ? { path: SDKS[args.path], namespace: "lazy-sdk" } : undefined,
    );
    b.onLoad({ filter: /^sdk-/, namespace: "lazy-sdk" }, (args) => ({ contents: `module.exports = require("./${args.path}").default;`, loader: "js" }));
    b.onResolve({ filter: /^\.\/mcp-sdk-modules\.ts$/ }, (args) => (args.kind === "dynamic-import" ? { path: MCP_SDK, namespace: "lazy-sdk" } : undefined));
    b.onLoad({ filter: /^mcp-sdk\.cjs$/, namespace: "lazy-sdk" }, (args) => ({ contents: `module.exports = require("./${args.path}");`, loader: "js" }));
    b.onResolve({ filter: /^\.\/(sdk-[a-z]+|mcp-sdk)\.cjs$/ }, (args) => ({ path: args.path, external: true }));
  },
};

const common = {
  bundle: true,
  platform: "node",
  target: "node22",
  sourcemap: "linked",
  logLevel: "warning",
  external: native,
  absWorkingDir: root,
};

await Promise.all([
  esbuild({
    ...common,
    entryPoints: ["app/main/electron/main.ts"],
    outfile: `${out}/main/index.cjs`,
    format: "cjs",
    plugins: [lazySdks],
    // Code written as ESM (the store's checkpoint worker) asks import.meta.url where it is.
    define: { "import.meta.url": "__lathe_import_meta_url" },
    banner: { js: 'var __lathe_import_meta_url = require("url").pathToFileURL(__filename).href;' },
  }),
  // The compute pool's worker (app/main/workers): self-contained CommonJS beside each bundle.
  ...[`${out}/main`, `${out}/host`].map((dir) => esbuild({ ...common, entryPoints: ["app/main/workers/compute-worker.ts"], outfile: `${dir}/compute-worker.cjs`, format: "cjs" })),
  // The first snapshot's process (app/main/workers/snapshot-process.ts), beside each bundle; its
  // compute pool finds compute-worker.cjs beside it through import.meta.url.
  ...[`${out}/main`, `${out}/host`].map((dir) =>
    esbuild({
      ...common,
      entryPoints: ["app/main/workers/snapshot-process.ts"],
      outfile: `${dir}/snapshot-process.cjs`,
      format: "cjs",
      define: { "import.meta.url": "__lathe_import_meta_url" },
      banner: { js: 'var __lathe_import_meta_url = require("url").pathToFileURL(__filename).href;' },
    }),
  ),
  // Each SDK's CommonJS bundle, built from its ES modules (tree-shaken, as in the main bundle
  // before), exporting the client class as `default`; the module above hands that class to the
  // import() (esbuild's Node-mode interop makes `default` whatever module.exports is).
  ...Object.entries(SDKS).map(([module, file]) =>
    esbuild({
      ...common,
      stdin: { contents: `export { default } from "${module}";`, resolveDir: root, loader: "js" },
      outfile: `${out}/main/${file}`,
      format: "cjs",
      sourcemap: false,
      // Third-party code with no source map in the package: blanks and syntax compacted (names kept,
      // so its stack traces still read), about a third of the installer's app.asar less to load.
      minifyWhitespace: true,
      minifySyntax: true,
    }),
  ),
  esbuild({ ...common, entryPoints: ["app/main/mcp/mcp-sdk-modules.ts"], outfile: `${out}/main/${MCP_SDK}`, format: "cjs", sourcemap: false }),
  esbuild({ ...common, entryPoints: ["app/preload/index.ts"], outfile: `${out}/preload/index.cjs`, format: "cjs", sourcemap: false }),
  esbuild({
    ...common,
    // launch.ts checks Node's version and turns on its compile cache, then imports cli.ts (a chunk:
    // its native modules load only after the check, and it is cached).
    entryPoints: { index: "app/main/host/launch.ts" },
    outdir: `${out}/host`,
    outExtension: { ".js": ".mjs" },
    splitting: true,
    chunkNames: "[name]-[hash]",
    format: "esm",
    // esbuild's ESM output needs a require for the CommonJS packages it bundles.
    banner: { js: "import { createRequire as __cr } from 'node:module'; const require = __cr(import.meta.url);" },
  }),
]);
// The grammar's .wasm files go beside each bundle that parses commands.
const require = createRequire(import.meta.url);
const grammar = [require.resolve("web-tree-sitter/web-tree-sitter.wasm"), require.resolve("tree-sitter-bash/tree-sitter-bash.wasm")];
for (const dir of [`${out}/main/wasm`, `${out}/host/wasm`]) {
  const target = isAbsolute(dir) ? dir : `${root}${dir}`;
  mkdirSync(target, { recursive: true });
  for (const file of grammar) copyFileSync(file, `${target}/${file.split(/[\\/]/).pop()}`);
}
// The terminal reader (scripts/build-native.mjs builds it at install) goes beside each bundle
// that runs the bash tool; without it the tool reads terminals through node-pty (slower).
const ptyReader = `${root}app/main/tools/native/build/Release/pty_reader.node`;
spawnSync(process.execPath, [`${root}scripts/build-native.mjs`, "--if-stale"], { stdio: "inherit" });
if (existsSync(ptyReader)) {
  for (const dir of [`${out}/main/native`, `${out}/host/native`]) {
    const target = isAbsolute(dir) ? dir : `${root}${dir}`;
    mkdirSync(target, { recursive: true });
    copyFileSync(ptyReader, `${target}/pty_reader.node`);
  }
} else console.warn("build: app/main/tools/native is not built (npm install builds it); the bash tool will read terminals through node-pty");
if (!process.argv.includes("--no-renderer")) {
  await viteBuild({ configFile: `${root}vite.config.ts`, logLevel: "warn" });
}
console.log(`built ${out}/main, ${out}/preload, ${out}/host` + (process.argv.includes("--no-renderer") ? "" : ", out/renderer"));
