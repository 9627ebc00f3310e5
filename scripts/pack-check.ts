// `npm run pack:check`: proves offline what can be proven about the installers without building
// them. It builds the bundles, then runs electron-builder itself (the same config as `npm run
// dist`, target "dir" for Linux on this machine's arch) against a stand-in Electron distribution,
// so the file selection, the asar (written by @electron/asar inside the packager), the unpacked
// native modules, the bash grammar's .wasm files and the afterPack fuse hook are exactly what an
// installer would carry. Only the
// Electron binary differs: the stand-in is a small file that carries Electron's default fuse wire.
// Then it checks the result (checkPackage) and prints one line per check; exit 1 on any failure.
// Usage: node scripts/pack-check.ts [--no-build] [--keep]
import { getRawHeader, extractFile } from "@electron/asar";
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";

/** Budgets for what the app carries; raise them on purpose, not by accident. */
export const ASAR_BUDGET_BYTES = 8 * 1024 * 1024;
export const UNPACKED_BUDGET_BYTES = 6 * 1024 * 1024;
/** Electron's fuse wire as shipped (FuseV1Options order): the stand-in binary starts from it. */
const ELECTRON_DEFAULT_WIRE = "10110001";
const FUSE_SENTINEL = "dL7pKGdnNz796PbbjQWNKmHXBZaB9tsX";

export interface CheckResult {
  name: string;
  ok: boolean;
  detail: string;
}

export interface AsarEntry {
  path: string;
  size: number;
  unpacked: boolean;
}

interface HeaderNode {
  files?: Record<string, HeaderNode>;
  size?: number;
  unpacked?: boolean;
  link?: string;
}

/** Every file in an asar, with its size and whether it lives in app.asar.unpacked. */
export function asarEntries(asarPath: string): AsarEntry[] {
  const entries: AsarEntry[] = [];
  const walk = (node: HeaderNode, prefix: string): void => {
    for (const [name, child] of Object.entries(node.files ?? {})) {
      const rel = prefix ? `${prefix}/${name}` : name;
      if (child.files) walk(child, rel);
      else if (child.link === undefined) entries.push({ path: rel, size: child.size ?? 0, unpacked: child.unpacked === true });
    }
  };
  walk(getRawHeader(asarPath).header as HeaderNode, "");
  return entries;
}

/** Names of the production dependency closure of a package.json in a node_modules tree. */
export function productionClosure(rootDir: string, roots: string[]): Set<string> {
  const seen = new Set<string>();
  const queue = [...roots];
  while (queue.length > 0) {
    const name = queue.shift()!;
    if (seen.has(name)) continue;
    seen.add(name);
    const manifest = path.join(rootDir, "node_modules", name, "package.json");
    if (!fs.existsSync(manifest)) continue;
    const pkg = JSON.parse(fs.readFileSync(manifest, "utf8")) as { dependencies?: Record<string, string> };
    queue.push(...Object.keys(pkg.dependencies ?? {}));
  }
  return seen;
}

export interface PackageExpectations {
  /** The project's package.json (name, version, main, dependencies, devDependencies). */
  projectPackage: { main: string; version: string; dependencies?: Record<string, string>; devDependencies?: Record<string, string> };
  /** Module names that must be unpacked and loadable in plain Node. */
  nativeModules: readonly string[];
  /** Where node_modules is, to compute the production dependency closure. */
  projectDir: string;
  /** Load the unpacked native modules in a child Node (false on a host of another platform). */
  loadNatives: boolean;
  /** The compute pool's worker script, which must be unpacked and run in a worker thread. */
  computeWorker?: string;
  /** The first checkpoint's process script, which must be unpacked and store a small snapshot (with the compute worker beside it). */
  snapshotProcess?: string;
  /** The terminal reader's binary, which must be unpacked and read a pipe in a child Node. */
  ptyReader?: string;
  /** Load the packed bash grammar with web-tree-sitter from node_modules, in a child Node. */
  loadGrammar?: boolean;
  asarBudget?: number;
  unpackedBudget?: number;
}

/** Checks a packaged resources folder (app.asar + app.asar.unpacked). Never throws. */
export function checkPackage(resourcesDir: string, expect: PackageExpectations): CheckResult[] {
  const results: CheckResult[] = [];
  const check = (name: string, run: () => string): void => {
    try {
      results.push({ name, ok: true, detail: run() });
    } catch (error) {
      results.push({ name, ok: false, detail: error instanceof Error ? error.message : String(error) });
    }
  };
  const asarPath = path.join(resourcesDir, "app.asar");
  const unpackedDir = `${asarPath}.unpacked`;
  let entries: AsarEntry[] = [];
  check("asar readable", () => {
    entries = asarEntries(asarPath);
    return `${entries.length} files`;
  });
  if (!results[0]!.ok) return results;
  const byPath = new Map(entries.map((entry) => [entry.path, entry]));
  const read = (file: string): string => extractFile(asarPath, file).toString("utf8");
  const need = (file: string): AsarEntry => {
    const entry = byPath.get(file);
    if (!entry) throw new Error(`${file} is not in app.asar`);
    if (entry.unpacked) throw new Error(`${file} is unpacked, but it belongs inside app.asar`);
    return entry;
  };

  check("main entry resolves", () => {
    const packed = JSON.parse(read("package.json")) as { main?: string; version?: string };
    if (packed.main !== expect.projectPackage.main) throw new Error(`packed package.json main is ${packed.main}, expected ${expect.projectPackage.main}`);
    if (packed.version !== expect.projectPackage.version) throw new Error(`packed version ${packed.version} differs from ${expect.projectPackage.version}`);
    const main = path.posix.normalize(packed.main);
    need(main);
    return `package.json main → ${main} (${(need(main).size / 1024).toFixed(0)} KiB), version ${packed.version}`;
  });
  check("preload inside", () => {
    const preload = need("out/preload/index.cjs");
    if (!read("out/main/index.cjs").includes('"preload", "index.cjs"') && !read("out/main/index.cjs").includes("preload/index.cjs")) {
      throw new Error("the main bundle does not refer to preload/index.cjs");
    }
    return `out/preload/index.cjs (${(preload.size / 1024).toFixed(0)} KiB)`;
  });
  check("renderer inside, with its CSP", () => {
    need("out/renderer/index.html");
    const html = read("out/renderer/index.html");
    const csp = /<meta\s+http-equiv="Content-Security-Policy"\s+content="([^"]+)"/i.exec(html)?.[1];
    if (!csp) throw new Error("out/renderer/index.html has no Content-Security-Policy meta tag");
    const directives = new Map(
      csp
        .split(";")
        .map((d) => d.trim().split(/\s+/))
        .filter((d) => d[0])
        .map((d) => [d[0]!, d.slice(1)]),
    );
    const scripts = directives.get("script-src") ?? directives.get("default-src");
    if (!scripts) throw new Error(`CSP has neither script-src nor default-src: ${csp}`);
    for (const bad of ["'unsafe-inline'", "'unsafe-eval'", "*", "http:", "https:"]) {
      if (scripts.includes(bad)) throw new Error(`CSP script-src allows ${bad}: ${csp}`);
    }
    const assets = [...html.matchAll(/(?:src|href)="\.\/([^"]+)"/g)].map((m) => path.posix.join("out/renderer", m[1]!));
    if (assets.length === 0) throw new Error("index.html references no ./assets");
    for (const asset of assets) need(asset);
    return `index.html + ${assets.length} assets; script-src ${scripts.join(" ")}`;
  });
  check("bash grammar inside, loadable", () => {
    const files = ["out/main/wasm/web-tree-sitter.wasm", "out/main/wasm/tree-sitter-bash.wasm"];
    for (const file of files) need(file);
    if (!read("out/main/index.cjs").includes("tree-sitter-bash.wasm")) throw new Error("the main bundle does not look for tree-sitter-bash.wasm");
    if (!expect.loadGrammar) return `${files.join(", ")} packed (not loaded: no web-tree-sitter here)`;
    return loadGrammarInChild(files.map((file) => extractFile(asarPath, file)));
  });
  check("native modules outside the asar", () => {
    const notes: string[] = [];
    for (const name of expect.nativeModules) {
      const prefix = `node_modules/${name}/`;
      const files = entries.filter((entry) => entry.path.startsWith(prefix));
      if (files.length === 0) throw new Error(`${name} is not packaged`);
      const packedInside = files.filter((entry) => !entry.unpacked);
      if (packedInside.length > 0)
        throw new Error(
          `${name} has files inside app.asar: ${packedInside
            .slice(0, 3)
            .map((e) => e.path)
            .join(", ")}`,
        );
      const binaries = files.filter((entry) => entry.path.endsWith(".node"));
      if (binaries.length === 0) throw new Error(`${name} has no .node binary`);
      for (const binary of binaries) {
        if (!fs.existsSync(path.join(unpackedDir, binary.path))) throw new Error(`${binary.path} is marked unpacked but missing from app.asar.unpacked`);
      }
      notes.push(`${name}: ${binaries.map((b) => b.path.slice(prefix.length)).join(", ")}`);
    }
    const strayNative = entries.filter((entry) => entry.path.endsWith(".node") && !entry.unpacked);
    if (strayNative.length > 0) throw new Error(`native binaries inside app.asar: ${strayNative.map((e) => e.path).join(", ")}`);
    return notes.join("; ");
  });
  check("native modules load from app.asar.unpacked in plain Node", () => {
    if (!expect.loadNatives) return "skipped: the package is for another platform than this host";
    return loadNativesInChild(unpackedDir);
  });
  check("compute worker unpacked and running", () => {
    const worker = expect.computeWorker ?? "out/main/compute-worker.cjs";
    const entry = byPath.get(worker);
    if (!entry) throw new Error(`${worker} is not packaged`);
    if (!entry.unpacked) throw new Error(`${worker} is inside app.asar; it must be unpacked beside it (asarUnpack)`);
    const file = path.join(unpackedDir, worker);
    if (!fs.existsSync(file)) throw new Error(`${worker} is marked unpacked but missing from app.asar.unpacked`);
    if (!read("out/main/index.cjs").includes(path.posix.basename(worker))) throw new Error(`the main bundle does not refer to ${path.posix.basename(worker)}`);
    if (!expect.loadNatives) return `${worker} (${(entry.size / 1024).toFixed(0)} KiB); not run: the package is for another platform`;
    return runComputeWorkerInChild(file);
  });
  if (expect.ptyReader) {
    const reader = expect.ptyReader;
    check("terminal reader unpacked and reading", () => {
      const entry = byPath.get(reader);
      if (!entry) throw new Error(`${reader} is not packaged (npm install builds it: scripts/build-native.mjs)`);
      if (!entry.unpacked) throw new Error(`${reader} is inside app.asar; it must be unpacked beside it (asarUnpack)`);
      const file = path.join(unpackedDir, reader);
      if (!fs.existsSync(file)) throw new Error(`${reader} is marked unpacked but missing from app.asar.unpacked`);
      if (!expect.loadNatives) return `${reader} (${(entry.size / 1024).toFixed(0)} KiB); not run: the package is for another platform`;
      return runPtyReaderInChild(file);
    });
  }
  if (expect.snapshotProcess) {
    const snapshot = expect.snapshotProcess;
    check("snapshot process unpacked and storing", () => {
      const entry = byPath.get(snapshot);
      if (!entry) throw new Error(`${snapshot} is not packaged`);
      if (!entry.unpacked) throw new Error(`${snapshot} is inside app.asar; it must be unpacked beside it (asarUnpack)`);
      const file = path.join(unpackedDir, snapshot);
      if (!fs.existsSync(file)) throw new Error(`${snapshot} is marked unpacked but missing from app.asar.unpacked`);
      if (!read("out/main/index.cjs").includes(path.posix.basename(snapshot))) throw new Error(`the main bundle does not refer to ${path.posix.basename(snapshot)}`);
      if (!expect.loadNatives) return `${snapshot} (${(entry.size / 1024).toFixed(0)} KiB); not run: the package is for another platform`;
      return runSnapshotProcessInChild(file);
    });
  }
  check("no test files, sources or dev dependencies packed", () => {
    const tops = new Set(entries.map((entry) => entry.path.split("/")[0]));
    const allowedTops = new Set(["out", "node_modules", "package.json"]);
    const strayTop = [...tops].filter((top) => !allowedTops.has(top!));
    if (strayTop.length > 0) throw new Error(`unexpected top-level entries: ${strayTop.join(", ")}`);
    const outDirs = new Set(entries.filter((e) => e.path.startsWith("out/")).map((e) => e.path.split("/")[1]));
    const strayOut = [...outDirs].filter((dir) => !["main", "preload", "renderer"].includes(dir!));
    if (strayOut.length > 0) throw new Error(`out/ carries more than main, preload, renderer: ${strayOut.join(", ")}`);
    const banned =
      /(^|\/)(test|tests|__tests__|spec|benchmark|docs?)\/|\.(test|spec)\.[cm]?[jt]sx?$|\.map$|\.[cm]?tsx?$|(^|\/)(binding\.gyp|Makefile)$|\.(cc|cpp|c|h|hpp|pdb|o|obj)$/;
    const bannedFiles = entries.filter((entry) => banned.test(entry.path) && !entry.path.endsWith(".d.ts"));
    if (bannedFiles.length > 0)
      throw new Error(
        `files that do not belong in the app: ${bannedFiles
          .slice(0, 5)
          .map((e) => e.path)
          .join(", ")}${bannedFiles.length > 5 ? ` (+${bannedFiles.length - 5})` : ""}`,
      );
    const closure = productionClosure(expect.projectDir, Object.keys(expect.projectPackage.dependencies ?? {}));
    const modules = new Set(entries.filter((e) => e.path.startsWith("node_modules/")).map((e) => moduleName(e.path)));
    const notProduction = [...modules].filter((name) => !closure.has(name));
    if (notProduction.length > 0) throw new Error(`packages outside the production dependencies: ${notProduction.join(", ")}`);
    const devDeps = Object.keys(expect.projectPackage.devDependencies ?? {}).filter((name) => modules.has(name));
    if (devDeps.length > 0) throw new Error(`devDependencies packed: ${devDeps.join(", ")}`);
    return `top level ${[...tops].sort().join(", ")}; node_modules: ${[...modules].sort().join(", ")}`;
  });
  check("size budget", () => {
    const asarBytes = fs.statSync(asarPath).size;
    const unpackedBytes = entries.filter((e) => e.unpacked).reduce((sum, e) => sum + e.size, 0);
    const asarBudget = expect.asarBudget ?? ASAR_BUDGET_BYTES;
    const unpackedBudget = expect.unpackedBudget ?? UNPACKED_BUDGET_BYTES;
    const line = `app.asar ${mib(asarBytes)} of ${mib(asarBudget)}, unpacked ${mib(unpackedBytes)} of ${mib(unpackedBudget)}`;
    if (asarBytes > asarBudget || unpackedBytes > unpackedBudget) throw new Error(`over budget: ${line}`);
    return line;
  });
  return results;
}

function moduleName(file: string): string {
  const parts = file.split("/");
  return parts[1]!.startsWith("@") ? `${parts[1]}/${parts[2]}` : parts[1]!;
}

function mib(bytes: number): string {
  return `${(bytes / 1024 / 1024).toFixed(1)} MiB`;
}

/** Loads the packed .wasm files (runtime, bash grammar) and parses a command, in a fresh Node process. */
function loadGrammarInChild(wasm: Buffer[]): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "lathe-pack-grammar-"));
  try {
    const [runtime, bash] = wasm.map((bytes, i) => {
      const file = path.join(dir, `${i}.wasm`);
      fs.writeFileSync(file, bytes);
      return file;
    });
    const script = `
      const { Parser, Language } = require("web-tree-sitter");
      const fs = require("node:fs");
      (async () => {
        await Parser.init({ wasmBinary: fs.readFileSync(${JSON.stringify(runtime)}) });
        const parser = new Parser();
        parser.setLanguage(await Language.load(fs.readFileSync(${JSON.stringify(bash)})));
        const tree = parser.parse("npm test && echo ok | cat");
        if (tree.rootNode.hasError || tree.rootNode.child(0).type !== "list") throw new Error("unexpected tree: " + tree.rootNode.toString());
        console.log("parsed with " + tree.rootNode.toString().length + " characters of tree");
      })().catch((e) => { console.error(e.message); process.exit(1); });`;
    const child = spawnSync(process.execPath, ["-e", script], { encoding: "utf8", timeout: 30_000, cwd: process.cwd() });
    if (child.status !== 0) throw new Error(`loading the packed grammar failed: ${(child.stderr || child.error?.message || "").trim().split("\n")[0]}`);
    return `out/main/wasm: ${wasm.map((b) => `${(b.length / 1024).toFixed(0)} KiB`).join(" + ")}, ${child.stdout.trim()}`;
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

/** Opens SQLite and runs a command in a pty with the unpacked copies, in a fresh Node process. */
function loadNativesInChild(unpackedDir: string): string {
  const script = `
    const path = require("node:path");
    const dir = ${JSON.stringify(unpackedDir)};
    const Database = require(path.join(dir, "node_modules/better-sqlite3"));
    const db = new Database(":memory:");
    const sqlite = db.prepare("select sqlite_version() as v").get().v;
    db.close();
    const pty = require(path.join(dir, "node_modules/node-pty"));
    const native = require.resolve(path.join(dir, "node_modules/node-pty"));
    if (!native.startsWith(dir)) throw new Error("node-pty resolved outside app.asar.unpacked: " + native);
    let out = "";
    const term = pty.spawn("/bin/sh", ["-c", "echo pty-ok"], { cols: 80, rows: 24, env: {} });
    term.onData((d) => { out += d; });
    term.onExit(({ exitCode }) => {
      if (exitCode !== 0 || !out.includes("pty-ok")) { console.error("pty run failed: exit " + exitCode + ", output " + JSON.stringify(out)); process.exit(1); }
      console.log("SQLite " + sqlite + ", pty ran /bin/sh");
    });`;
  const child = spawnSync(process.execPath, ["-e", script], { encoding: "utf8", timeout: 30_000 });
  if (child.status !== 0) throw new Error(`loading the unpacked modules failed: ${(child.stderr || child.error?.message || "").trim().split("\n").slice(0, 4).join(" | ")}`);
  return child.stdout.trim();
}

/** Reads a pipe with the packaged terminal reader in a fresh Node process. */
function runPtyReaderInChild(file: string): string {
  const script = `
    const fs = require("node:fs");
    const os = require("node:os");
    const path = require("node:path");
    const { start, spawn, spawnPipes } = require(${JSON.stringify(file)});
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "lathe-pack-"));
    const fifo = path.join(dir, "pipe");
    require("node:child_process").execFileSync("mkfifo", [fifo]);
    const fd = fs.openSync(fifo, fs.constants.O_RDONLY | fs.constants.O_NONBLOCK);
    const out = fs.openSync(fifo, "w");
    let got = "";
    const reader = start(fd, (chunk, end) => {
      if (chunk) got += Buffer.from(chunk).toString();
      if (!end) return void setImmediate(() => reader.ack());
      fs.rmSync(dir, { recursive: true, force: true });
      if (got !== "reader-ok") { console.error("read " + JSON.stringify(got)); process.exit(1); }
      if (process.platform !== "linux") return void console.log("read a pipe on its own thread");
      // Linux: a command started in a terminal without fork() (pty-spawn.c), read the same way.
      if (typeof spawn !== "function") { console.error("no spawn() in the module (glibc older than 2.29 where it was built?)"); process.exit(1); }
      let said = "";
      const term = spawn("/bin/sh", ["sh", "-c", "printf spawn-ok"], ["PATH=/usr/bin:/bin"], os.tmpdir(), 80, 24, () => undefined);
      const output = start(term.fd, (chunk, end) => {
        if (chunk) said += Buffer.from(chunk).toString();
        if (!end) return void setImmediate(() => output.ack());
        fs.closeSync(term.fd);
        if (said !== "spawn-ok") { console.error("the started command said " + JSON.stringify(said)); process.exit(1); }
        // And a program with pipes (pipe-spawn.c: git and ripgrep), its stdout read the same way.
        if (typeof spawnPipes !== "function") { console.error("no spawnPipes() in the module"); process.exit(1); }
        let piped = "";
        const child = spawnPipes("/bin/sh", ["sh", "-c", "printf pipes-ok"], ["PATH=/usr/bin:/bin"], os.tmpdir(), [false, true, false], () => undefined);
        const pipe = start(child.stdout, (chunk, end) => {
          if (chunk) piped += Buffer.from(chunk).toString();
          if (!end) return void setImmediate(() => pipe.ack());
          fs.closeSync(child.stdout);
          if (piped !== "pipes-ok") { console.error("the program started with pipes said " + JSON.stringify(piped)); process.exit(1); }
          console.log("read a pipe on its own thread; started a command in a terminal and a program with pipes without fork()");
        });
      });
    });
    fs.writeSync(out, "reader-ok");
    fs.closeSync(out);
    fs.closeSync(fd);`;
  const child = spawnSync(process.execPath, ["-e", script], { encoding: "utf8", timeout: 20_000 });
  if (child.status !== 0) throw new Error(`the terminal reader failed: ${(child.stderr || child.error?.message || "").trim().split("\n").slice(0, 4).join(" | ")}`);
  return child.stdout.trim();
}

/** Runs a diff job in the packaged worker script, in a worker thread of a fresh Node process. */
function runComputeWorkerInChild(file: string): string {
  const script = `
    const { Worker } = require("node:worker_threads");
    const worker = new Worker(${JSON.stringify(file)});
    const timer = setTimeout(() => { console.error("no answer in 20 s"); process.exit(1); }, 20000);
    worker.on("error", (e) => { console.error(e.message); process.exit(1); });
    worker.on("exit", (code) => { console.error("the worker exited (code " + code + ") without answering"); process.exit(1); });
    worker.on("message", (m) => {
      if (m.ready === true) return; // said once its code is loaded, before any answer
      worker.removeAllListeners("exit");
      clearTimeout(timer);
      if (!m.ok || !String(m.result.diff).includes("+worker-ok")) { console.error(JSON.stringify(m)); process.exit(1); }
      console.log("a diff job ran in a worker thread");
      void worker.terminate();
    });
    worker.postMessage({ id: 1, job: { kind: "fileDiff", path: "/nonexistent/lathe-pack-check", shown: "x", content: "worker-ok\\n", oldName: "a/x", newName: "b/x" } });`;
  const child = spawnSync(process.execPath, ["-e", script], { encoding: "utf8", timeout: 30_000 });
  if (child.status !== 0) throw new Error(`running the compute worker failed: ${(child.stderr || child.error?.message || "").trim().split("\n").slice(0, 4).join(" | ")}`);
  return child.stdout.trim();
}

/** Stores a two-file snapshot with the packaged snapshot process (forked from a fresh Node, as the host forks it). */
function runSnapshotProcessInChild(file: string): string {
  const script = `
    const { fork } = require("node:child_process");
    const fs = require("node:fs"), os = require("node:os"), path = require("node:path");
    const work = fs.mkdtempSync(path.join(os.tmpdir(), "lathe-pack-check-snapshot-"));
    const project = path.join(work, "project");
    fs.mkdirSync(project);
    fs.writeFileSync(path.join(project, "a.txt"), "a\\n");
    fs.writeFileSync(path.join(project, "b.txt"), "b\\n");
    const child = fork(${JSON.stringify(file)}, [], { serialization: "advanced", stdio: ["ignore", "ignore", "inherit", "ipc"], execArgv: [] });
    const timer = setTimeout(() => { console.error("no answer in 20 s"); child.kill(); process.exit(1); }, 20000);
    child.on("message", (m) => {
      clearTimeout(timer);
      child.kill();
      fs.rmSync(work, { recursive: true, force: true });
      if (!m.ok || m.stored !== 2 || !/^[0-9a-f]{40}$/.test(m.tree)) { console.error(JSON.stringify(m)); process.exit(1); }
      console.log("a snapshot of 2 files was stored by the snapshot process (tree " + m.tree.slice(0, 12) + ")");
    });
    child.send({ gitDir: path.join(work, "1.git"), projectDir: project, paths: Buffer.from("a.txt\\0b.txt\\0"), sizes: new Float64Array([2, 2]), level: 1, lowPriority: false, timeoutMs: 20000 });`;
  const child = spawnSync(process.execPath, ["-e", script], { encoding: "utf8", timeout: 30_000 });
  if (child.status !== 0) throw new Error(`running the snapshot process failed: ${(child.stderr || child.error?.message || "").trim().split("\n").slice(0, 4).join(" | ")}`);
  return child.stdout.trim();
}

/** A stand-in Electron distribution: an executable carrying Electron's fuse wire, plus `version`. */
function standInElectron(dir: string, version: string): void {
  fs.mkdirSync(path.join(dir, "resources"), { recursive: true });
  const wire = Buffer.concat([Buffer.from(FUSE_SENTINEL), Buffer.from([1, ELECTRON_DEFAULT_WIRE.length]), Buffer.from(ELECTRON_DEFAULT_WIRE)]);
  fs.writeFileSync(path.join(dir, "electron"), Buffer.concat([Buffer.from("#!/bin/sh\necho 'stand-in Electron for pack:check'\nexit 1\n#"), wire, Buffer.from("\n")]), {
    mode: 0o755,
  });
  fs.writeFileSync(path.join(dir, "version"), `${version}\n`);
  fs.writeFileSync(path.join(dir, "LICENSE"), "stand-in\n");
}

/** Resolves with the number of failed checks. */
async function main(): Promise<number> {
  const started = Date.now();
  const root = fileURLToPath(new URL("..", import.meta.url));
  process.chdir(root);
  const args = new Set(process.argv.slice(2));
  if (!args.has("--no-build")) {
    const built = spawnSync(process.execPath, ["scripts/build.mjs"], { stdio: "inherit" });
    if (built.status !== 0) throw new Error("the build failed (node scripts/build.mjs)");
  }
  const { build, Platform, archFromString } = await import("electron-builder");
  const { default: config, NATIVE_MODULES, COMPUTE_WORKER_PATH, SNAPSHOT_PROCESS_PATH, PTY_READER_PATH } = await import("../electron-builder.config.ts");
  const { FUSES, readFuses, wrongFuses } = await import("./fuses.ts");
  const projectPackage = JSON.parse(fs.readFileSync("package.json", "utf8")) as PackageExpectations["projectPackage"];
  const electronVersion = (JSON.parse(fs.readFileSync("node_modules/electron/package.json", "utf8")) as { version: string }).version;

  const work = fs.mkdtempSync(path.join(os.tmpdir(), "lathe-pack-check-"));
  try {
    standInElectron(path.join(work, "electron"), electronVersion);
    const arch = archFromString(process.arch);
    console.log(`pack:check: packaging for linux-${process.arch} with electron-builder (stand-in Electron ${electronVersion})`);
    await build({
      targets: Platform.LINUX.createTarget(["dir"], arch),
      publish: "never",
      config: { ...config, electronDist: path.join(work, "electron"), electronVersion, directories: { ...config.directories, output: path.join(work, "dist") } },
    });
    const appDir = path.join(work, "dist", arch === archFromString("x64") ? "linux-unpacked" : `linux-${process.arch}-unpacked`);
    const resourcesDir = path.join(appDir, "resources");
    const results = checkPackage(resourcesDir, {
      projectPackage,
      nativeModules: NATIVE_MODULES,
      projectDir: root,
      loadNatives: process.platform === "linux",
      computeWorker: COMPUTE_WORKER_PATH,
      snapshotProcess: SNAPSHOT_PROCESS_PATH,
      ptyReader: PTY_READER_PATH,
      loadGrammar: true,
    });
    try {
      const wrong = wrongFuses(await readFuses(path.join(appDir, "lathe")));
      const detail =
        wrong.length > 0
          ? `not as scripts/fuses.ts sets them: ${wrong.join(", ")}`
          : Object.entries(FUSES)
              .map(([n, on]) => `${n}=${on ? "on" : "off"}`)
              .join(", ");
      results.push({ name: "fuses flipped by the afterPack hook", ok: wrong.length === 0, detail });
    } catch (error) {
      results.push({ name: "fuses flipped by the afterPack hook", ok: false, detail: String(error) });
    }
    // electron-updater reads resources/app-update.yml; it must exist exactly when publish is set.
    const updateYml = fs.existsSync(path.join(resourcesDir, "app-update.yml"));
    const publishing = config.publish != null;
    results.push({
      name: "update feed matches the publish config",
      ok: updateYml === publishing,
      detail: publishing
        ? updateYml
          ? "publish set: resources/app-update.yml written"
          : "publish set but no resources/app-update.yml"
        : updateYml
          ? "no publish config, yet resources/app-update.yml exists"
          : "no publish config: no app-update.yml, the updater stays off",
    });
    console.log("");
    for (const result of results) console.log(`${result.ok ? "ok  " : "FAIL"}  ${result.name}: ${result.detail}`);
    const failed = results.filter((result) => !result.ok);
    console.log(`\npack:check: ${results.length - failed.length} of ${results.length} checks passed in ${((Date.now() - started) / 1000).toFixed(1)} s`);
    if (args.has("--keep")) console.log(`kept ${appDir}`);
    return failed.length;
  } finally {
    if (!args.has("--keep")) fs.rmSync(work, { recursive: true, force: true });
  }
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  // An explicit exit: something the packaging step loads sets process.exitCode back to 0 before the
  // process ends (seen: 1 once main resolved, 0 in the exit handler), so a failed check exited 0.
  main().then(
    (failures) => process.exit(failures > 0 ? 1 : 0),
    (error: unknown) => {
      console.error(`pack:check failed: ${error instanceof Error ? error.message : String(error)}`);
      process.exit(1);
    },
  );
}
