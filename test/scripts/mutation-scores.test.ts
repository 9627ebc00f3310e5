// scripts/mutation-scores.ts: scores per file from several incremental reports, the newest result
// of each mutant among the reports that measured the file's current source.
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { defaultReports, mutationScores, type Report, scoreLines, TARGETS, totalScore } from "../../scripts/mutation-scores.ts";

const at = (line: number, column = 1) => ({ start: { line, column }, end: { line, column: column + 1 } });
const mutant = (line: number, status: string, mutatorName = "ConditionalExpression", replacement = "true") => ({ mutatorName, replacement, status, location: at(line) });
const report = (files: Report["files"]): Report => ({ files });

describe("mutationScores", () => {
  it("keeps each mutant's best result among the reports of the current source, the newest on a tie", () => {
    const old = report({
      "a.ts": { source: "v1", mutants: [mutant(1, "Survived"), mutant(2, "Survived"), mutant(3, "Killed"), mutant(4, "NoCoverage"), mutant(5, "NoCoverage")] },
    });
    // A later copy keeps an older result (3 survived in the report it was copied from), or has none.
    const newer = report({ "a.ts": { source: "v1", mutants: [mutant(1, "Killed"), mutant(2, "Timeout"), mutant(3, "Survived"), mutant(5, "Survived")] } });
    const [a] = mutationScores(
      [
        { name: "old", report: old },
        { name: "new", report: newer },
      ],
      () => "v1",
    );
    expect(a).toEqual({ file: "a.ts", score: 60, killed: 2, timedOut: 1, survived: 1, noCoverage: 1, ignored: 0, other: 0, stale: false, from: ["old", "new"] });
    // A tie: the newest report's.
    const [tie] = mutationScores(
      [
        { name: "old", report: old },
        { name: "new", report: report({ "a.ts": { source: "v1", mutants: [mutant(3, "Timeout")] } }) },
      ],
      () => "v1",
    );
    expect(tie).toMatchObject({ killed: 0, timedOut: 1, from: ["old", "new"] });
  });

  it("tells mutants apart by place, mutator and replacement", () => {
    const r = report({
      "a.ts": { source: "s", mutants: [mutant(1, "Killed"), mutant(1, "Survived", "EqualityOperator", "<="), mutant(1, "Survived", "ConditionalExpression", "false")] },
    });
    expect(mutationScores([{ name: "r", report: r }], () => "s")[0]).toMatchObject({ killed: 1, survived: 2 });
  });

  it("leaves out results of another source, and scores a changed file from its newest report, stale", () => {
    const before = report({ "a.ts": { source: "v1", mutants: [mutant(1, "Killed")] }, "b.ts": { source: "b1", mutants: [mutant(1, "Survived")] } });
    const after = report({ "a.ts": { source: "v2", mutants: [mutant(1, "Survived")] }, "b.ts": { source: "b2", mutants: [mutant(1, "Killed"), mutant(2, "Ignored")] } });
    const reports = [
      { name: "before", report: before },
      { name: "after", report: after },
    ];
    const sources: Record<string, string> = { "a.ts": "v1", "b.ts": "b3" };
    const [a, b] = mutationScores(reports, (f) => sources[f]);
    expect(a).toMatchObject({ file: "a.ts", score: 100, killed: 1, survived: 0, stale: false, from: ["before"] });
    expect(b).toMatchObject({ file: "b.ts", score: 100, killed: 1, ignored: 1, stale: true, from: ["after"] });
    // A file that is gone is left out.
    expect(mutationScores(reports, (f) => (f === "a.ts" ? "v1" : undefined)).map((s) => s.file)).toEqual(["a.ts"]);
  });

  it("leaves out a result whose place ends before it starts (an old result Stryker moved along its diff)", () => {
    const moved = { ...mutant(2, "Survived"), location: { start: { line: 2, column: 30 }, end: { line: 2, column: 10 } } };
    const earlier = { ...mutant(3, "Survived"), location: { start: { line: 3, column: 5 }, end: { line: 2, column: 50 } } };
    const r = report({ "a.ts": { source: "s", mutants: [mutant(1, "Killed"), moved, earlier] } });
    expect(mutationScores([{ name: "r", report: r }], () => "s")[0]).toMatchObject({ score: 100, killed: 1, survived: 0 });
  });

  it("counts ignored and other results apart from the score, and gives no score without a counted mutant", () => {
    const r = report({
      "a.ts": { source: "s", mutants: [mutant(1, "Ignored"), mutant(2, "RuntimeError"), mutant(3, "Pending")] },
      "b.ts": { source: "s", mutants: [mutant(1, "Killed"), mutant(2, "Survived"), mutant(3, "Survived"), mutant(4, "CompileError")] },
    });
    const scores = mutationScores([{ name: "r", report: r }], () => "s");
    expect(scores[0]).toMatchObject({ score: null, ignored: 1, other: 2 });
    expect(scores[1]!.score).toBeCloseTo(100 / 3, 10);
    expect(scores[1]!.other).toBe(1);
    expect(totalScore(scores)).toBeCloseTo(100 / 3, 10);
    expect(totalScore([])).toBeNull();
  });
});

describe("defaultReports", () => {
  const dirs: string[] = [];
  afterEach(() => dirs.splice(0).forEach((d) => fs.rmSync(d, { recursive: true, force: true })));

  it("lists the target's own file first, then its per-branch files by name", () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "lathe-scores-"));
    dirs.push(dir);
    for (const f of ["permissions-h20b-incremental.json", "permissions-incremental.json", "permissions-h20a-incremental.json", "store-incremental.json", "permissions.json"])
      fs.writeFileSync(path.join(dir, f), "{}");
    expect(defaultReports(dir, "permissions").map((p) => path.basename(p))).toEqual([
      "permissions-incremental.json",
      "permissions-h20a-incremental.json",
      "permissions-h20b-incremental.json",
    ]);
    fs.rmSync(path.join(dir, "permissions-incremental.json"));
    expect(defaultReports(dir, "permissions").map((p) => path.basename(p))).toEqual(["permissions-h20a-incremental.json", "permissions-h20b-incremental.json"]);
  });

  it("never takes another target's files whose name starts with the target's for its branches' (permissions-app)", () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "lathe-scores-"));
    dirs.push(dir);
    for (const f of [
      "permissions-incremental.json",
      "permissions-h20a-incremental.json",
      "permissions-app-incremental.json",
      "permissions-app-h20h-incremental.json",
      "permissions-app.json",
    ])
      fs.writeFileSync(path.join(dir, f), "{}");
    expect(defaultReports(dir, "permissions").map((p) => path.basename(p))).toEqual(["permissions-incremental.json", "permissions-h20a-incremental.json"]);
    expect(defaultReports(dir, "permissions-app").map((p) => path.basename(p))).toEqual(["permissions-app-incremental.json", "permissions-app-h20h-incremental.json"]);
    // Without the longer target known, its files read as branches of the shorter.
    expect(defaultReports(dir, "permissions", ["permissions"]).map((p) => path.basename(p))).toEqual([
      "permissions-incremental.json",
      "permissions-app-h20h-incremental.json",
      "permissions-app-incremental.json",
      "permissions-h20a-incremental.json",
    ]);
    // The targets are stryker.config.mjs's.
    const config = fs.readFileSync(path.join(import.meta.dirname, "../../stryker.config.mjs"), "utf8");
    const configured = [...config.slice(config.indexOf("const TARGETS = {")).matchAll(/^ {2}"?([a-z-]+)"?: \{\s+mutate:/gm)].map((m) => m[1]);
    expect([...TARGETS].sort()).toEqual(configured.sort());
  });
});

describe("scoreLines", () => {
  const dirs: string[] = [];
  afterEach(() => dirs.splice(0).forEach((d) => fs.rmSync(d, { recursive: true, force: true })));

  /** A root with a source file per target and its reports: `reports` maps a report's name to its files' mutants. */
  function rootWith(reports: Record<string, Record<string, ReturnType<typeof mutant>[]>>): string {
    const root = fs.mkdtempSync(path.join(os.tmpdir(), "lathe-scores-"));
    dirs.push(root);
    fs.mkdirSync(path.join(root, "reports/mutation"), { recursive: true });
    for (const [name, files] of Object.entries(reports)) {
      const r: Report = { files: {} };
      for (const [file, mutants] of Object.entries(files)) {
        fs.mkdirSync(path.dirname(path.join(root, file)), { recursive: true });
        fs.writeFileSync(path.join(root, file), `source of ${file}`);
        r.files[file] = { source: `source of ${file}`, mutants };
      }
      fs.writeFileSync(path.join(root, "reports/mutation", name), JSON.stringify(r));
    }
    return root;
  }

  it("without arguments scores every target, each with its total, then all of them together", () => {
    const root = rootWith({
      "loop-h20k-incremental.json": { "loop/a.ts": [mutant(1, "Killed"), mutant(2, "Survived")] },
      "permissions-incremental.json": { "permissions/b.ts": [mutant(1, "Killed")] },
      "permissions-app-h20h-incremental.json": { "permissions/c.ts": [mutant(1, "Killed"), mutant(2, "Timeout")] },
      "store-incremental.json": { "store/d.ts": [mutant(1, "NoCoverage"), mutant(2, "Killed"), mutant(3, "Killed"), mutant(4, "Killed")] },
    });
    const out = scoreLines(root, []);
    expect("lines" in out).toBe(true);
    const lines = "lines" in out ? out.lines : [];
    const totals = lines.filter((l) => l.startsWith("all "));
    expect(totals).toEqual([
      "all 1 files of loop\t50.00 %",
      "all 1 files of permissions\t100.00 %",
      "all 1 files of permissions-app\t100.00 %",
      "all 1 files of store\t75.00 %",
      "all 4 files of loop, permissions, permissions-app, store\t77.78 %",
    ]);
    expect(lines.filter((l) => / \(\d+ reports\)$/.test(l))).toEqual(["loop (1 reports)", "permissions (1 reports)", "permissions-app (1 reports)", "store (1 reports)"]);
    expect(lines).toContain("loop/a.ts\t50.00 %\t1\t0\t1\t0\t0\t0\tloop-h20k-incremental.json");
  });

  it("scores the targets named alone, and refuses an argument that is neither a report nor a target", () => {
    const root = rootWith({ "store-incremental.json": { "store/d.ts": [mutant(1, "Killed"), mutant(2, "Survived")] } });
    const out = scoreLines(root, ["store"]);
    expect("lines" in out && out.lines).toEqual([
      "file\tscore\tkilled\ttimed out\tsurvived\tnot covered\tignored\tother\tfrom",
      "store/d.ts\t50.00 %\t1\t0\t1\t0\t0\t0\tstore-incremental.json",
      "all 1 files\t50.00 %",
    ]);
    expect(scoreLines(root, ["stor"])).toEqual({ error: "Not a report (.json) nor a target (loop, permissions, permissions-app, store): stor" });
  });
});
