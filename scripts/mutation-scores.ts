// Mutation scores per file from several Stryker incremental reports (node scripts/mutation-scores.ts
// [report.json ...]). Helpers measure the same target at once, each with its own incremental file
// (reports/mutation/permissions-<branch>-incremental.json): those files cannot be merged into one
// report, because Stryker numbers tests per report (test "12" of one file is another test in the
// next), and a mutant's killedBy and coveredBy name tests by those numbers. Scores need neither:
// this reads every report that measured a file's current source and keeps per mutant (its place,
// mutator and replacement) the best result any of them has: detected (killed or timed out), then
// survived, then not covered, the newest on a tie. Not simply the newest: a per-branch file starts
// as a copy and keeps the copied results of files its branch did not mutate, so a later file may
// hold an older result (h20c's and h20d's files hold call-parts.ts's results from before h20a's
// tests). Tests are only ever added, so a kill stays a kill while the source is the same. It prints
// each file's score as Stryker computes it: (killed + timed out) / (killed + timed out + survived
// + not covered); ignored, pending, runtime and compile errors left out. Reports are newest last:
// as given, or by default reports/mutation/<target>-incremental.json first, then the per-branch
// files by name, for the targets named (`node scripts/mutation-scores.ts store`), or without
// arguments for all four targets (issue 20 judges each folder), each with its total, then all of
// them together. A file
// whose source has changed since every report that holds it is scored from the newest of those
// and marked "stale" (its mutants' places may no longer be the code's).
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";

interface Mutant {
  mutatorName: string;
  replacement?: string;
  status: string;
  location: { start: { line: number; column: number }; end: { line: number; column: number } };
}
export interface Report {
  files: Record<string, { source: string; mutants: Mutant[] }>;
}

export interface FileScore {
  file: string;
  /** Null when no mutant counts (all ignored, or none). */
  score: number | null;
  killed: number;
  timedOut: number;
  survived: number;
  noCoverage: number;
  ignored: number;
  /** Pending, runtime and compile errors. */
  other: number;
  /** The current source differs from every report's: results of the newest report that holds the file. */
  stale: boolean;
  /** The report each result comes from (by name), newest last, without repeats. */
  from: string[];
}

function mutantKey(m: Mutant): string {
  const { start, end } = m.location;
  return `${start.line}:${start.column}-${end.line}:${end.column} ${m.mutatorName} ${m.replacement ?? ""}`;
}

/**
 * A place that ends before it starts is no place of the current source: Stryker's incremental run
 * writes the current source of every file it keeps, including files it did not mutate, and moves
 * their old results along its diff; results in code that changed came out so (seen on 2026-12-03:
 * 4 of path-facts.ts' results from before h20g's fix, `guard <= 4096` and `guard--` among them,
 * copied from h20d's file on, with the current source in h20i's, which made them count).
 */
function inverted(location: Mutant["location"]): boolean {
  const { start, end } = location;
  return end.line < start.line || (end.line === start.line && end.column < start.column);
}

/** How much a result tells: a detection over a survivor over no coverage over the rest. */
function rank(status: string): number {
  return status === "Killed" || status === "Timeout" ? 3 : status === "Survived" ? 2 : status === "NoCoverage" ? 1 : 0;
}

/**
 * Per file: the best result of each mutant (the newest on a tie) among `reports` (oldest first)
 * that measured the file's current source (`sourceOf`; undefined: the file is gone, and it is
 * left out).
 */
export function mutationScores(reports: readonly { name: string; report: Report }[], sourceOf: (file: string) => string | undefined): FileScore[] {
  const files = new Set(reports.flatMap(({ report }) => Object.keys(report.files)));
  const scores: FileScore[] = [];
  for (const file of [...files].sort()) {
    const source = sourceOf(file);
    if (source === undefined) continue;
    const holding = reports.filter(({ report }) => report.files[file] !== undefined);
    const current = holding.filter(({ report }) => report.files[file]!.source === source);
    const stale = current.length === 0;
    const used = stale ? holding.slice(-1) : current;
    const results = new Map<string, { status: string; from: string }>();
    for (const { name, report } of used) {
      for (const m of report.files[file]!.mutants) {
        if (inverted(m.location)) continue;
        const key = mutantKey(m);
        const known = results.get(key);
        if (!known || rank(m.status) >= rank(known.status)) results.set(key, { status: m.status, from: name });
      }
    }
    const count = (status: string) => [...results.values()].filter((r) => r.status === status).length;
    const killed = count("Killed");
    const timedOut = count("Timeout");
    const survived = count("Survived");
    const noCoverage = count("NoCoverage");
    const ignored = count("Ignored");
    const valid = killed + timedOut + survived + noCoverage;
    scores.push({
      file,
      score: valid === 0 ? null : (100 * (killed + timedOut)) / valid,
      killed,
      timedOut,
      survived,
      noCoverage,
      ignored,
      other: results.size - valid - ignored,
      stale,
      from: [...new Set([...results.values()].map((r) => r.from))].sort((a, b) => used.findIndex((u) => u.name === a) - used.findIndex((u) => u.name === b)),
    });
  }
  return scores;
}

/** The whole of several files: their results summed. */
export function totalScore(scores: readonly FileScore[]): number | null {
  const detected = scores.reduce((n, s) => n + s.killed + s.timedOut, 0);
  const valid = scores.reduce((n, s) => n + s.killed + s.timedOut + s.survived + s.noCoverage, 0);
  return valid === 0 ? null : (100 * detected) / valid;
}

/** The targets of stryker.config.mjs, all scored when none is named. A target's name may start another's (permissions, permissions-app). */
export const TARGETS = ["loop", "permissions", "permissions-app", "store"];

/**
 * The default reports of a target: its own incremental file, then the per-branch ones by name
 * (`<target>-<branch>-incremental.json`), never those of a target whose name starts with this
 * one's (`permissions-app-h20h-incremental.json` is permissions-app's, not a branch of permissions).
 */
export function defaultReports(dir: string, target: string, targets: readonly string[] = TARGETS): string[] {
  const own = `${target}-incremental.json`;
  const longer = targets.filter((t) => t !== target && t.startsWith(`${target}-`));
  const branches = fs
    .readdirSync(dir)
    .filter((f) => f.startsWith(`${target}-`) && f.endsWith("-incremental.json") && f !== own && !longer.some((t) => f.startsWith(`${t}-`)))
    .sort();
  return [own, ...branches].filter((f) => fs.existsSync(path.join(dir, f))).map((f) => path.join(dir, f));
}

/**
 * What the script prints for `args` (report files, or target names each scored from its default
 * reports under `root`; none: every target, each with its total, then all together): its lines,
 * or an error for an argument that is neither.
 */
export function scoreLines(root: string, args: readonly string[]): { lines: string[] } | { error: string } {
  const unknown = args.filter((a) => !a.endsWith(".json") && !TARGETS.includes(a));
  if (unknown.length > 0) return { error: `Not a report (.json) nor a target (${TARGETS.join(", ")}): ${unknown.join(", ")}` };
  const files = args.filter((a) => a.endsWith(".json"));
  const targets = args.filter((a) => !a.endsWith(".json"));
  const groups: { name: string; paths: string[] }[] =
    files.length > 0
      ? [{ name: "the reports given", paths: files }]
      : (targets.length > 0 ? targets : TARGETS).map((t) => ({ name: t, paths: defaultReports(path.join(root, "reports/mutation"), t) }));
  const pct = (n: number | null) => (n === null ? "-" : `${n.toFixed(2)} %`);
  const lines: string[] = [];
  const all: FileScore[] = [];
  for (const group of groups) {
    const reports = group.paths.map((p) => ({ name: path.basename(p), report: JSON.parse(fs.readFileSync(p, "utf8")) as Report }));
    const scores = mutationScores(reports, (file) => {
      const full = path.resolve(root, file);
      return fs.existsSync(full) ? fs.readFileSync(full, "utf8") : undefined;
    });
    all.push(...scores);
    if (groups.length > 1) lines.push("", `${group.name} (${group.paths.length} reports)`);
    lines.push(["file", "score", "killed", "timed out", "survived", "not covered", "ignored", "other", "from"].join("\t"));
    for (const s of scores)
      lines.push([s.file + (s.stale ? " (stale)" : ""), pct(s.score), s.killed, s.timedOut, s.survived, s.noCoverage, s.ignored, s.other, s.from.join(", ")].join("\t"));
    lines.push(`all ${scores.length} files${groups.length > 1 ? ` of ${group.name}` : ""}\t${pct(totalScore(scores))}`);
  }
  if (groups.length > 1) lines.push("", `all ${all.length} files of ${groups.map((g) => g.name).join(", ")}\t${pct(totalScore(all))}`);
  return { lines };
}

function main(): void {
  const out = scoreLines(fileURLToPath(new URL("..", import.meta.url)), process.argv.slice(2));
  if ("error" in out) {
    console.error(out.error);
    process.exitCode = 2;
    return;
  }
  console.log(out.lines.join("\n"));
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) main();
