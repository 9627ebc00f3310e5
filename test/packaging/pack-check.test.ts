import { createPackageWithOptions } from "@electron/asar";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { checkPackage, type PackageExpectations } from "../../scripts/pack-check.ts";

const dirs: string[] = [];
afterEach(() => dirs.splice(0).forEach((dir) => fs.rmSync(dir, { recursive: true, force: true })));

const CSP = "default-src 'none'; script-src 'self'; style-src 'self' 'unsafe-inline'";

/** Writes an app folder, packs it with @electron/asar (natives unpacked), returns the resources dir. */
async function pack(files: Record<string, string | Buffer>, unpackDir = "node_modules/{better-sqlite3,node-pty}", unpack = "**/compute-worker.cjs"): Promise<string> {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), "lathe-pack-test-"));
  dirs.push(root);
  const app = path.join(root, "app");
  for (const [file, content] of Object.entries(files)) {
    fs.mkdirSync(path.dirname(path.join(app, file)), { recursive: true });
    fs.writeFileSync(path.join(app, file), content);
  }
  const resources = path.join(root, "resources");
  fs.mkdirSync(resources);
  await createPackageWithOptions(app, path.join(resources, "app.asar"), { unpackDir, unpack });
  return resources;
}

const grammar = (file: string) => fs.readFileSync(path.join(import.meta.dirname, "../../node_modules", file));

const goodApp = (): Record<string, string | Buffer> => ({
  "package.json": JSON.stringify({ name: "lathe", version: "1.2.3", main: "out/main/index.cjs", dependencies: { "better-sqlite3": "1", "node-pty": "1" } }),
  "out/main/index.cjs": 'const preload = path.join(__dirname, "..", "preload", "index.cjs"); const worker = "compute-worker.cjs"; const grammar = "tree-sitter-bash.wasm";',
  "out/main/compute-worker.cjs": "// worker",
  "out/main/wasm/web-tree-sitter.wasm": grammar("web-tree-sitter/web-tree-sitter.wasm"),
  "out/main/wasm/tree-sitter-bash.wasm": grammar("tree-sitter-bash/tree-sitter-bash.wasm"),
  "out/preload/index.cjs": "// preload",
  "out/renderer/index.html": `<meta http-equiv="Content-Security-Policy" content="${CSP}"><script src="./assets/a.js"></script>`,
  "out/renderer/assets/a.js": "console.log(1)",
  "node_modules/better-sqlite3/package.json": "{}",
  "node_modules/better-sqlite3/prebuilds/linux-x64.node": "not really a binary",
  "node_modules/node-pty/package.json": "{}",
  "node_modules/node-pty/build/Release/pty.node": "not really a binary",
});

function expectations(overrides: Partial<PackageExpectations> = {}): PackageExpectations {
  return {
    projectPackage: { main: "out/main/index.cjs", version: "1.2.3", dependencies: { "better-sqlite3": "1", "node-pty": "1" }, devDependencies: { react: "19" } },
    nativeModules: ["better-sqlite3", "node-pty"],
    projectDir: "/nonexistent",
    loadNatives: false,
    ...overrides,
  };
}

const failures = (results: ReturnType<typeof checkPackage>) => results.filter((r) => !r.ok).map((r) => `${r.name}: ${r.detail}`);

describe("checkPackage", () => {
  it("passes a well-formed package", async () => {
    const results = checkPackage(await pack(goodApp()), expectations());
    expect(failures(results)).toEqual([]);
    expect(results.map((r) => r.name)).toContain("size budget");
  });

  it("reports a wrong main entry, a missing preload and an unsafe CSP", async () => {
    const app = goodApp();
    app["package.json"] = JSON.stringify({ version: "1.2.3", main: "out/main/missing.cjs" });
    delete app["out/preload/index.cjs"];
    app["out/renderer/index.html"] = `<meta http-equiv="Content-Security-Policy" content="script-src 'self' 'unsafe-eval'"><script src="./assets/a.js"></script>`;
    const text = failures(checkPackage(await pack(app), expectations())).join("\n");
    expect(text).toContain("packed package.json main is out/main/missing.cjs");
    expect(text).toContain("out/preload/index.cjs is not in app.asar");
    expect(text).toContain("CSP script-src allows 'unsafe-eval'");
  });

  it("reports a compute worker that is missing or packed inside the asar", async () => {
    const missing = goodApp();
    delete missing["out/main/compute-worker.cjs"];
    expect(failures(checkPackage(await pack(missing), expectations())).join("\n")).toContain("out/main/compute-worker.cjs is not packaged");
    expect(failures(checkPackage(await pack(goodApp(), undefined, "nothing"), expectations())).join("\n")).toContain(
      "out/main/compute-worker.cjs is inside app.asar; it must be unpacked beside it",
    );
  });

  it("runs the packaged compute worker when it can", async () => {
    const broken = checkPackage(await pack(goodApp()), expectations({ loadNatives: true })).find((r) => r.name === "compute worker unpacked and running");
    expect(broken).toMatchObject({ ok: false });
    const app = goodApp();
    app["out/main/compute-worker.cjs"] =
      'const { parentPort } = require("node:worker_threads"); parentPort.on("message", (m) => parentPort.postMessage({ id: m.id, ok: true, result: { diff: "+worker-ok" } }));';
    const ran = checkPackage(await pack(app), expectations({ loadNatives: true })).find((r) => r.name === "compute worker unpacked and running");
    expect(ran).toMatchObject({ ok: true, detail: "a diff job ran in a worker thread" });
  });

  it("reports native binaries packed inside the asar", async () => {
    const text = failures(checkPackage(await pack(goodApp(), "nothing"), expectations())).join("\n");
    expect(text).toContain("better-sqlite3 has files inside app.asar");
  });

  it("reports test files, dev dependencies and stray build output", async () => {
    const app = { ...goodApp(), "out/host/index.mjs": "x", "node_modules/react/index.js": "x" };
    const text = failures(checkPackage(await pack(app), expectations())).join("\n");
    expect(text).toContain("out/ carries more than main, preload, renderer: host");
    const withTests = { ...goodApp(), "out/main/agent.test.js": "x" };
    expect(failures(checkPackage(await pack(withTests), expectations())).join("\n")).toContain("out/main/agent.test.js");
    const withDev = { ...goodApp(), "node_modules/react/index.js": "x" };
    expect(failures(checkPackage(await pack(withDev), expectations())).join("\n")).toContain("packages outside the production dependencies: react");
  });

  it("loads the packed bash grammar, and reports one that is missing or broken", async () => {
    const ok = checkPackage(await pack(goodApp()), expectations({ loadGrammar: true }));
    expect(ok.find((r) => r.name === "bash grammar inside, loadable")).toMatchObject({ ok: true, detail: expect.stringContaining("parsed") });
    const missing = goodApp();
    delete missing["out/main/wasm/tree-sitter-bash.wasm"];
    expect(failures(checkPackage(await pack(missing), expectations())).join("\n")).toContain("out/main/wasm/tree-sitter-bash.wasm is not in app.asar");
    const broken = { ...goodApp(), "out/main/wasm/tree-sitter-bash.wasm": "not WebAssembly" };
    expect(failures(checkPackage(await pack(broken), expectations({ loadGrammar: true }))).join("\n")).toContain("loading the packed grammar failed");
  });

  it("reports natives that do not load and packages over budget", async () => {
    const resources = await pack(goodApp());
    const text = failures(checkPackage(resources, expectations({ loadNatives: true, asarBudget: 10 }))).join("\n");
    expect(text).toContain("loading the unpacked modules failed");
    expect(text).toContain("over budget");
  });
});
