// The layer rules of .dependency-cruiser.cjs (run over app/ by `npm run lint`) report what they
// should: a tree laid out like app/ in a temporary folder breaks each rule once, on purpose,
// beside imports every layer may make; the cruise must name exactly those breaks. A rule added
// to the config without a break here fails the first test.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import os from "node:os";
import path from "node:path";
import { cruise, type ICruiseResult, type IFlattenedRuleSet } from "dependency-cruiser";
import { ESLint } from "eslint";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

const config = createRequire(import.meta.url)("../../.dependency-cruiser.cjs") as { forbidden: IFlattenedRuleSet["forbidden"] & { name: string }[] };

/** File -> the files it imports (paths under the temporary root). A type-only import is marked "type:". */
const TREE: Record<string, string[]> = {
  // Allowed: each layer importing what is below it.
  "app/shared/types.ts": [],
  "app/main/loop/index.ts": ["app/main/loop/agent.ts", "app/shared/types.ts"],
  "app/main/loop/agent.ts": ["app/shared/types.ts"],
  "app/main/providers/anthropic.ts": ["app/main/loop/index.ts"],
  "app/main/tools/bash.ts": ["app/main/loop/index.ts", "app/main/sandbox/run.ts", "app/main/workers/pool.ts"],
  "app/main/sandbox/run.ts": ["app/main/tools/process-tree.ts"],
  "app/main/tools/process-tree.ts": [],
  "app/main/workers/pool.ts": [],
  "app/main/store/index.ts": ["app/main/loop/index.ts", "app/main/providers/anthropic.ts"],
  "app/main/sessions/service.ts": ["app/main/store/index.ts", "app/main/tools/bash.ts", "app/main/sessions/port.ts"],
  "app/main/sessions/port.ts": [],
  "app/main/settings/service.ts": ["app/main/store/index.ts"],
  "app/main/ipc/router.ts": ["app/shared/types.ts"],
  // Its last import is composition-below-the-shells' break.
  "app/main/app-services.ts": ["app/main/sessions/service.ts", "app/main/settings/service.ts", "app/main/ipc/router.ts", "app/main/host/launch.ts"],
  "app/main/electron/main.ts": ["app/main/app-services.ts", "app/main/ipc/router.ts"],
  "app/main/host/cli.ts": ["app/main/app-services.ts"],
  "app/main/host/launch.ts": [],
  "app/renderer/App.tsx": ["app/shared/types.ts"],
  "app/preload/index.ts": ["app/shared/types.ts"],
  // Breaks, one per rule (the file's name says which).
  "app/shared/no-cycles-a.ts": ["app/shared/no-cycles-b.ts"],
  "app/shared/no-cycles-b.ts": ["app/shared/no-cycles-a.ts"],
  "app/shared/imports-main.ts": ["app/main/store/index.ts"],
  "app/main/loop/imports-tools.ts": ["app/main/tools/bash.ts"],
  "app/main/tools/loop-internals.ts": ["app/main/loop/agent.ts"],
  "app/main/providers/imports-tools.ts": ["app/main/tools/bash.ts"],
  "app/main/workers/imports-providers.ts": ["app/main/providers/anthropic.ts"],
  "app/main/sandbox/imports-store.ts": ["app/main/store/index.ts"],
  "app/main/store/imports-a-service.ts": ["app/main/sessions/service.ts"],
  "app/main/permissions/imports-a-service-type.ts": ["type:app/main/sessions/port.ts"],
  "app/main/mcp/imports-ipc.ts": ["app/main/ipc/router.ts"],
  "app/main/ipc/imports-composition.ts": ["app/main/app-services.ts"],
  "app/main/host/imports-electron-shell.ts": ["app/main/electron/main.ts"],
  "app/main/settings/imports-renderer.ts": ["app/renderer/App.tsx"],
  "app/renderer/imports-main.tsx": ["app/main/ipc/router.ts"],
  "app/preload/imports-renderer.ts": ["app/renderer/App.tsx"],
  // The imports of the checkpoints feature that lint once let through (now ports, see FORMER_BREAKS).
  "app/main/sessions/live-session.ts": ["app/main/checkpoints/turn-hooks.ts"],
  "app/main/sessions/sessions-service.ts": ["type:app/main/checkpoints/turns.ts"],
  "app/main/checkpoints/checkpoint-requests.ts": ["type:app/main/sessions/service.ts"],
  "app/main/checkpoints/turn-hooks.ts": [],
  "app/main/checkpoints/turns.ts": [],
  "app/main/workers/compute-jobs.ts": ["app/main/checkpoints/checkpoint-jobs.ts"],
  "app/main/checkpoints/checkpoint-jobs.ts": [],
};

/** Rule -> the one import that breaks it ("from -> to"). */
const EXPECTED: Record<string, string> = {
  "no-cycles": "app/shared/no-cycles-a.ts -> app/shared/no-cycles-b.ts",
  "shared-imports-nothing-of-the-project": "app/shared/imports-main.ts -> app/main/store/index.ts",
  "loop-imports-only-shared": "app/main/loop/imports-tools.ts -> app/main/tools/bash.ts",
  "loop-through-its-index": "app/main/tools/loop-internals.ts -> app/main/loop/agent.ts",
  "providers-and-tools-apart": "app/main/providers/imports-tools.ts -> app/main/tools/bash.ts",
  "tools-and-providers-apart": "app/main/workers/imports-providers.ts -> app/main/providers/anthropic.ts",
  "capabilities-below-the-store": "app/main/sandbox/imports-store.ts -> app/main/store/index.ts",
  "store-below-the-services": "app/main/store/imports-a-service.ts -> app/main/sessions/service.ts",
  "services-do-not-import-each-other": "app/main/permissions/imports-a-service-type.ts -> app/main/sessions/port.ts",
  "services-know-nothing-of-ipc": "app/main/mcp/imports-ipc.ts -> app/main/ipc/router.ts",
  "ipc-below-the-composition": "app/main/ipc/imports-composition.ts -> app/main/app-services.ts",
  "composition-below-the-shells": "app/main/app-services.ts -> app/main/host/launch.ts",
  "shells-apart": "app/main/host/imports-electron-shell.ts -> app/main/electron/main.ts",
  "main-never-imports-the-renderer-side": "app/main/settings/imports-renderer.ts -> app/renderer/App.tsx",
  "renderer-imports-only-shared": "app/renderer/imports-main.tsx -> app/main/ipc/router.ts",
  "preload-imports-only-shared": "app/preload/imports-renderer.ts -> app/renderer/App.tsx",
};

/** Breaks lint once ignored (a list of known violations, now gone): each must be reported again. */
const FORMER_BREAKS: [rule: string, edge: string][] = [
  ["services-do-not-import-each-other", "app/main/sessions/live-session.ts -> app/main/checkpoints/turn-hooks.ts"],
  ["services-do-not-import-each-other", "app/main/sessions/sessions-service.ts -> app/main/checkpoints/turns.ts"],
  ["services-do-not-import-each-other", "app/main/checkpoints/checkpoint-requests.ts -> app/main/sessions/service.ts"],
  ["capabilities-below-the-store", "app/main/workers/compute-jobs.ts -> app/main/checkpoints/checkpoint-jobs.ts"],
];

let root: string;
let violations: { rule: string; edge: string }[];

beforeAll(async () => {
  root = mkdtempSync(path.join(os.tmpdir(), "lathe-layers-"));
  for (const [file, imports] of Object.entries(TREE)) {
    const lines = imports.map((target, i) => {
      const typeOnly = target.startsWith("type:");
      const to = path.relative(path.dirname(file), typeOnly ? target.slice(5) : target);
      const spec = to.startsWith(".") ? to : `./${to}`;
      return typeOnly ? `import type { T } from "${spec}";\nexport type U${i} = T;` : `import { value as v${i} } from "${spec}";\nexport const u${i} = v${i};`;
    });
    mkdirSync(path.join(root, path.dirname(file)), { recursive: true });
    writeFileSync(path.join(root, file), [...lines, "export const value = 1;", "export type T = number;", ""].join("\n"));
  }
  const result = await cruise(["app"], { baseDir: root, validate: true, ruleSet: { forbidden: config.forbidden }, tsPreCompilationDeps: true }, { extensions: [".ts", ".tsx"] });
  const summary = (result.output as ICruiseResult).summary;
  // A cycle is reported at each of its members; one report per rule and module pair is enough.
  violations = summary.violations.map((v) => ({ rule: v.rule.name, edge: `${v.from} -> ${v.to}` }));
});

afterAll(() => rmSync(root, { recursive: true, force: true }));

describe("layer rules (.dependency-cruiser.cjs)", () => {
  it("every rule of the config has a break in the tree", () => {
    expect(config.forbidden.map((r) => r.name).sort()).toEqual(Object.keys(EXPECTED).sort());
  });

  it("each rule reports its break, and nothing else is reported", () => {
    const reported = new Set(violations.map((v) => `${v.rule}: ${v.edge}`));
    const expected = [...Object.entries(EXPECTED), ...FORMER_BREAKS].map(([rule, edge]) => `${rule}: ${edge}`);
    const cycleOtherWay = "no-cycles: app/shared/no-cycles-b.ts -> app/shared/no-cycles-a.ts";
    expect([...reported].filter((r) => r !== cycleOtherWay).sort()).toEqual(expected.sort());
  });
});

describe("electron only in the Electron shell and the preload (eslint.config.js)", () => {
  const eslint = new ESLint({ cwd: path.resolve(import.meta.dirname, "../..") });
  const electronErrors = async (filePath: string, code: string) =>
    (await eslint.lintText(code, { filePath }))[0]!.messages.filter((m) => m.ruleId === "no-restricted-imports").map((m) => m.message);

  it.each(["app/main/sessions/x.ts", "app/main/host/x.ts", "app/shared/x.ts", "app/renderer/src/x.tsx", "test/x.test.ts"])("%s may not import electron", async (file) => {
    expect(await electronErrors(file, 'import { app } from "electron";\nexport const a = app;\n')).toEqual([
      expect.stringMatching(/Only app\/main\/electron and app\/preload may import electron\.$/),
    ]);
    expect(await electronErrors(file, 'import { ipcMain } from "electron/main";\nexport const a = ipcMain;\n')).toEqual([
      expect.stringMatching(/Only app\/main\/electron and app\/preload may import electron\.$/),
    ]);
  });

  it.each(["app/main/electron/x.ts", "app/preload/x.ts"])("%s may", async (file) => {
    expect(await electronErrors(file, 'import { app } from "electron";\nexport const a = app;\n')).toEqual([]);
  });
});
