// The checkpoint store's git work, variant against variant, on one project; prints ONE JSON line.
// Run with `npm run bench:checkpoint-git` (BENCH_FILES / BENCH_MB for a smaller project,
// BENCH_VARIANTS to choose, e.g. "v2,after,after-unsplit,level0"; default "v2,after"). It answers "which git settings and
// which sequence of git calls" with figures, where bench:checkpoints measures the service as built.
//
// Each variant has a shadow repository of its own over the same project (20,000 files / 200 MB):
// - first: a first snapshot into a new store (status, update-index of every file, write-tree, the
//   commit), BENCH_FIRST_RUNS (3) times, variants alternated run after run;
// - turn: after 10 files changed, the capture of a turn (status, update-index of what it listed,
//   write-tree, the commit), BENCH_TURNS (15) times, variants alternated (their order swapped
//   every turn), plus the bare `git status` of each variant and `git diff-files` (the smallest
//   git call that still lstat()s every tracked file: the floor of any "what changed" without a
//   file-system monitor, which Lathe must not run) for scale;
// - growth: bytes the store grew by per checkpoint over the bytes of the changed files.
// Wall times are medians and minima in ms; cpuMs is git's CPU time (user + system, from
// /proc/self/stat of this process's finished children: 10 ms ticks, so averaged over the runs);
// ownCpuMs is this process's own CPU (a turn's: the median; it includes the cost of each spawn,
// a fork of this process).
// The variants:
//   after: the store as shipped: app/main/checkpoints/shadow-repo.ts itself (its configuration
//          from shadow-layout.ts, its sequence of calls: status, then update-index and write-tree
//          in one spawn, the commit written from Node; a first snapshot by its own process);
//   after-unsplit: `after` with core.splitIndex off in that configuration (the split's share);
//   after-git: `after` with its first snapshot stored by git (first-snapshot.ts's storeMany: two
//          update-index processes into packs, its trees loose) instead of the snapshot process;
//   after-3spawns: `after` with a turn's update-index and write-tree spawned one after the other
//          from this process, as before they became one git alias (three spawns a turn, not two);
//   v2 (historic: the store before the split index and the Node-written commit): a first
//      snapshot streamed into packs by two update-index processes, the untracked cache used by
//      status, a whole index written by every call, `commit-tree` as a fourth process;
//   level0: v2 with its packs and objects uncompressed (core/pack.compression=0);
//   before (historic: the first store): loose objects at zlib level 1, one update-index,
//          `status -uall`, so the untracked cache is never used;
//   loose0: `before` with loose objects stored uncompressed (core.looseCompression=0);
//   bulk-single: v2 with one update-index process only.
import { execFileSync } from "node:child_process";
import { appendFileSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { loadavg, tmpdir } from "node:os";
import path from "node:path";
import { GitRunner, type GitOptions, type GitResult, type GitSession } from "../app/main/checkpoints/git-runner.ts";
import { joinNul } from "../app/main/checkpoints/path-bytes.ts";
import { parseStatus } from "../app/main/checkpoints/git-output.ts";
import { layOutShadowRepo, SHADOW_BASE_CONFIG } from "../app/main/checkpoints/shadow-layout.ts";
import { ShadowRepo } from "../app/main/checkpoints/shadow-repo.ts";
import { forkHelper } from "../app/main/workers/snapshot-client.ts";
import { duSync, makeSampleProject, sampleFileName } from "./support/sample-project.ts";

const FILES = Number(process.env.BENCH_FILES ?? 20_000);
const TOTAL_MB = Number(process.env.BENCH_MB ?? 200);
const TURNS = Number(process.env.BENCH_TURNS ?? 15);
const FIRST_RUNS = Number(process.env.BENCH_FIRST_RUNS ?? 3);
const VARIANTS = (process.env.BENCH_VARIANTS ?? "v2,after").split(",");
const work = mkdtempSync(path.join(tmpdir(), "lathe-checkpoint-git-bench-"));
const project = path.join(work, "project");
const git = new GitRunner(path.join(work, "no-hooks"));

/** A historic store: its own configuration and sequence of calls (capture below). */
interface Variant {
  config: string;
  statusArgs: string[];
  /** update-index processes for a first snapshot; with more than one, objects go to packs. */
  firstProcesses: number;
  bulk: boolean;
}

const BASE_CONFIG = SHADOW_BASE_CONFIG;
const LEVEL1 = "[core]\n\tlooseCompression = 1\n\tcompression = 1\n[pack]\n\tcompression = 1\n";
const STATUS = ["status", "--porcelain=v2", "-z", "--no-renames", "--ignore-submodules=all"];
const HISTORIC: Record<string, Variant> = {
  before: { config: BASE_CONFIG + LEVEL1, statusArgs: ["-uall"], firstProcesses: 1, bulk: false },
  v2: { config: `${BASE_CONFIG + LEVEL1}[status]\n\tshowUntrackedFiles = all\n`, statusArgs: [], firstProcesses: 2, bulk: true },
  level0: {
    config: `${BASE_CONFIG}[core]\n\tlooseCompression = 0\n\tcompression = 0\n[pack]\n\tcompression = 0\n[status]\n\tshowUntrackedFiles = all\n`,
    statusArgs: [],
    firstProcesses: 2,
    bulk: true,
  },
  loose0: { config: `${BASE_CONFIG}[core]\n\tlooseCompression = 0\n\tcompression = 0\n`, statusArgs: ["-uall"], firstProcesses: 1, bulk: false },
  "bulk-single": { config: `${BASE_CONFIG + LEVEL1}[status]\n\tshowUntrackedFiles = all\n`, statusArgs: [], firstProcesses: 1, bulk: true },
};
const SHIPPED = ["after", "after-unsplit", "after-git", "after-2spawns", "after-3spawns"];

/**
 * The store's git as before a turn's status and storing became one spawn (GitRunner.start): the
 * status spawned first, then (2 spawns) the store and write-tree by one alias, or (3 spawns)
 * update-index and write-tree spawned one after the other, each from here.
 */
class SplitGit extends GitRunner {
  readonly #spawns: 2 | 3;
  constructor(hooksDir: string, spawns: 2 | 3) {
    super(hooksDir);
    this.#spawns = spawns;
  }
  override start(args: string[], _marker: string, options: Omit<GitOptions, "input"> = {}): GitSession {
    if (!args.includes("lathe-capture")) throw new Error(`unexpected two-step call ${args.join(" ")}`);
    const head = this.run(SHIPPED_STATUS, options).then((r) => r.stdout);
    const finish = async (input?: Buffer): Promise<GitResult> => {
      await head;
      const store = input?.subarray(input.indexOf(0x0a) + 1);
      if (!input || input.subarray(0, input.indexOf(0x0a)).toString() !== "store") return { stdout: Buffer.alloc(0), stderr: "", code: 0 };
      if (this.#spawns === 2)
        return this.run(["-c", "alias.lathe-store-and-write-tree=!git update-index --add --remove --replace -z --stdin && git write-tree", "lathe-store-and-write-tree"], {
          ...options,
          input: store,
        });
      await this.run(["update-index", "--add", "--remove", "--replace", "-z", "--stdin"], { ...options, input: store });
      return this.run(["write-tree"], options);
    };
    let result: Promise<GitResult> | null = null;
    return { head, finish: (input?: Buffer) => (result ??= finish(input)) };
  }
}
const twoSpawnGit = new SplitGit(path.join(work, "no-hooks"), 2);
const threeSpawnGit = new SplitGit(path.join(work, "no-hooks"), 3);
const SHIPPED_STATUS = ["-c", "status.showUntrackedFiles=all", ...STATUS];
/** The shipped store of each "after" variant (the one the turns use: the last first snapshot's). */
const shipped = new Map<string, ShadowRepo>();

/** A new, empty store of `name`: laid out as the variant lays it out. */
async function newVariantStore(name: string): Promise<string> {
  if (!SHIPPED.includes(name)) return newStore(`${name}.git`, HISTORIC[name]!);
  const gitDir = path.join(work, `${name}.git`);
  rmSync(gitDir, { recursive: true, force: true });
  const runner = name === "after-2spawns" ? twoSpawnGit : name === "after-3spawns" ? threeSpawnGit : git;
  const repo = new ShadowRepo(gitDir, project, runner, false, name === "after-git" ? null : { launch: forkHelper });
  await repo.ready();
  if (name === "after-unsplit") {
    const config = path.join(gitDir, "config");
    writeFileSync(config, readFileSync(config, "utf8").replace("splitIndex = true", "splitIndex = false"));
  }
  shipped.set(name, repo);
  return gitDir;
}

/** One capture of variant `name`; returns the number of paths it stored. */
async function captureVariant(name: string, gitDir: string): Promise<number> {
  const repo = shipped.get(name);
  if (!repo) return capture(gitDir, HISTORIC[name]!);
  return (await repo.capture("bench", Number.MAX_SAFE_INTEGER, [])).changes.length;
}

function childCpuMs(): number {
  const fields = readFileSync("/proc/self/stat", "utf8").split(") ")[1]!.split(" ");
  return (Number(fields[13]) + Number(fields[14])) * 10;
}

/** A new store laid out as the app lays it out (shadow-layout.ts), with the variant's configuration. */
async function newStore(name: string, variant: Variant): Promise<string> {
  const gitDir = path.join(work, name);
  rmSync(gitDir, { recursive: true, force: true });
  await layOutShadowRepo(gitDir, git.hooksDir, variant.config);
  return gitDir;
}

const run = (gitDir: string, args: string[], options: { input?: Buffer; env?: Record<string, string> } = {}) =>
  git.run(args, { ...options, timeoutMs: 900_000, globalArgs: [`--git-dir=${gitDir}`, `--work-tree=${project}`] });

/** One capture as a historic variant takes it; returns the number of paths it stored. */
async function capture(gitDir: string, variant: Variant): Promise<number> {
  const status = await run(gitDir, [...STATUS, ...variant.statusArgs]);
  const paths = [...(await parseStatus(status.stdout)).values()].map((c) => c.path);
  const headText = readFileSync(path.join(gitDir, "HEAD"), "utf8").trim();
  const head = /^[0-9a-f]{40}$/.test(headText) ? headText : null;
  const bulk = variant.bulk && !head ? ["-c", "core.bigFileThreshold=1"] : [];
  const add = ["update-index", "--add", "--remove", "--replace", "-z", "--stdin"];
  if (!head && variant.firstProcesses > 1) {
    // Half of the files hashed and stored by a second process into an index thrown away; the main
    // index then adds them again (hashing only: the objects exist).
    const half = paths.slice(Math.ceil(paths.length / 2));
    const temp = path.join(gitDir, "index.bench-half");
    await Promise.all([
      run(gitDir, [...bulk, ...add], { input: joinNul(paths.slice(0, Math.ceil(paths.length / 2))) }),
      run(gitDir, [...bulk, ...add], { input: joinNul(half), env: { GIT_INDEX_FILE: temp } }),
    ]);
    rmSync(temp, { force: true });
    await run(gitDir, add, { input: joinNul(half) });
  } else if (paths.length > 0) {
    await run(gitDir, [...bulk, ...add], { input: joinNul(paths) });
  }
  const tree = (await run(gitDir, ["write-tree"])).stdout.toString("utf8").trim();
  const commit = (await run(gitDir, ["commit-tree", tree, "-m", "bench", ...(head ? ["-p", head] : [])])).stdout.toString("utf8").trim();
  writeFileSync(path.join(gitDir, "HEAD"), `${commit}\n`);
  return paths.length;
}

const stats = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  return { medianMs: Math.round(sorted[Math.floor(sorted.length / 2)]! * 10) / 10, minMs: Math.round(sorted[0]! * 10) / 10 };
};

async function timed<T>(action: () => Promise<T>): Promise<{ ms: number; cpuMs: number; ownCpuMs: number; value: T }> {
  const cpu = childCpuMs();
  const own = process.cpuUsage();
  const started = performance.now();
  const value = await action();
  const ownUsed = process.cpuUsage(own);
  return { ms: performance.now() - started, cpuMs: childCpuMs() - cpu, ownCpuMs: (ownUsed.user + ownUsed.system) / 1000, value };
}

async function main() {
  for (const name of VARIANTS)
    if (!HISTORIC[name] && !SHIPPED.includes(name)) throw new Error(`unknown variant ${name}: one of ${[...SHIPPED, ...Object.keys(HISTORIC)].join(", ")}`);
  const load = [loadavg()[0]!];
  makeSampleProject(project, FILES, TOTAL_MB);
  execFileSync("sync");
  const first: Record<string, { ms: number[]; cpu: number[]; ownCpu: number[]; storeBytes: number }> = {};
  const turn: Record<string, { ms: number[]; cpu: number[]; ownCpu: number[]; statusMs: number[]; statusCpu: number[]; growth: number[] }> = {};
  for (const name of VARIANTS) {
    first[name] = { ms: [], cpu: [], ownCpu: [], storeBytes: 0 };
    turn[name] = { ms: [], cpu: [], ownCpu: [], statusMs: [], statusCpu: [], growth: [] };
  }
  for (let r = 0; r < FIRST_RUNS; r++) {
    const order = r % 2 === 0 ? VARIANTS : [...VARIANTS].reverse();
    for (const name of order) {
      const gitDir = await newVariantStore(name);
      const result = await timed(() => captureVariant(name, gitDir));
      if (result.value !== FILES) throw new Error(`${name}: the first snapshot stored ${result.value} files, not ${FILES}`);
      first[name]!.ms.push(result.ms);
      first[name]!.cpu.push(result.cpuMs);
      first[name]!.ownCpu.push(result.ownCpuMs);
      first[name]!.storeBytes = duSync(path.join(gitDir, "objects"));
    }
  }
  const floor = { ms: [] as number[], cpu: [] as number[] };
  for (let t = 0; t < TURNS; t++) {
    let changedBytes = 0;
    for (let k = 0; k < 10; k++) {
      const file = sampleFileName(project, (t * 997 + k * 131) % FILES);
      appendFileSync(file, `\n// turn ${t} change ${k}\n`);
      changedBytes += statSync(file).size;
    }
    const order = t % 2 === 0 ? VARIANTS : [...VARIANTS].reverse();
    for (const name of order) {
      const gitDir = path.join(work, `${name}.git`);
      const status = await timed(() => run(gitDir, HISTORIC[name] ? [...STATUS, ...HISTORIC[name].statusArgs] : SHIPPED_STATUS));
      turn[name]!.statusMs.push(status.ms);
      turn[name]!.statusCpu.push(status.cpuMs);
      const before = duSync(path.join(gitDir, "objects"));
      const result = await timed(() => captureVariant(name, gitDir));
      if (result.value !== 10) throw new Error(`${name}: a turn's capture stored ${result.value} files, not 10`);
      turn[name]!.ms.push(result.ms);
      turn[name]!.cpu.push(result.cpuMs);
      turn[name]!.ownCpu.push(result.ownCpuMs);
      turn[name]!.growth.push((duSync(path.join(gitDir, "objects")) - before) / changedBytes);
    }
    const diffFiles = await timed(() => run(path.join(work, `${VARIANTS[0]}.git`), ["diff-files", "--name-only", "-z"]));
    floor.ms.push(diffFiles.ms);
    floor.cpu.push(diffFiles.cpuMs);
  }
  load.push(loadavg()[0]!);
  const mean = (values: number[]) => Math.round(values.reduce((a, b) => a + b, 0) / values.length);
  const out: Record<string, unknown> = { files: FILES, projectMB: TOTAL_MB };
  for (const name of VARIANTS) {
    out[name] = {
      first: { ...stats(first[name]!.ms), cpuMs: mean(first[name]!.cpu), ownCpuMs: mean(first[name]!.ownCpu), storeMB: Math.round(first[name]!.storeBytes / 1e5) / 10 },
      turn: {
        ...stats(turn[name]!.ms),
        cpuMs: mean(turn[name]!.cpu),
        ownCpuMs: stats(turn[name]!.ownCpu).medianMs,
        growthPerChangedByte: Math.round([...turn[name]!.growth].sort((a, b) => a - b)[Math.floor(TURNS / 2)]! * 1000) / 1000,
      },
      status: { ...stats(turn[name]!.statusMs), cpuMs: mean(turn[name]!.statusCpu) },
    };
  }
  out.diffFilesFloor = { ...stats(floor.ms), cpuMs: mean(floor.cpu) };
  out.loadAverage = load.map((l) => Math.round(l * 10) / 10);
  out.runs = { first: FIRST_RUNS, turns: TURNS };
  console.log(JSON.stringify(out));
}

try {
  await main();
} finally {
  rmSync(work, { recursive: true, force: true });
}
