// The parsers of git's output and the rewind plan handle lists of any length (one bash command can
// create 100,000 files) without holding the main thread: they read every record correctly, and
// they give the event loop a turn (a macrotask) between slices. Slices(0) ends a slice at every
// check, so the yielding is seen on small inputs, whatever the machine's speed.
import { Buffer } from "node:buffer";
import { describe, expect, it } from "vitest";
import { parseRawDiff, parseStatus, parseTree } from "../../app/main/checkpoints/git-output.ts";
import { planRewind } from "../../app/main/checkpoints/rewind-plan.ts";
import { mapInSlices, setInSlices, Slices } from "../../app/main/checkpoints/slices.ts";

const nul = (records: (string | Buffer)[]) => Buffer.concat(records.flatMap((r) => [Buffer.isBuffer(r) ? r : Buffer.from(r, "latin1"), Buffer.from([0])]));
const blob = (n: number) => n.toString(16).padStart(40, "0");

/** How many macrotasks ran while `work` was pending (a setImmediate that re-arms itself). */
async function macrotasksDuring<T>(work: () => Promise<T>): Promise<{ result: T; ticks: number }> {
  let ticks = 0;
  let done = false;
  const tick = () => {
    if (done) return;
    ticks++;
    setImmediate(tick);
  };
  setImmediate(tick);
  const result = await work();
  done = true;
  return { result, ticks };
}

describe("Slices", () => {
  it("ends a slice only every 64 checks, and at once with a budget of 0", () => {
    const slices = new Slices(0);
    const due = Array.from({ length: 128 }, () => slices.due());
    expect(due.flatMap((d, i) => (d ? [i] : []))).toEqual([63, 127]);
    const long = new Slices(60_000);
    expect(Array.from({ length: 256 }, () => long.due()).some(Boolean)).toBe(false);
  });

  it("mapInSlices and setInSlices give what map and new Set give, yielding between slices", async () => {
    const items = Array.from({ length: 1000 }, (_, i) => i);
    const mapped = await macrotasksDuring(() => mapInSlices(items, (n, i) => n * 2 + i, new Slices(0)));
    expect(mapped.result).toEqual(items.map((n, i) => n * 2 + i));
    expect(mapped.ticks).toBeGreaterThanOrEqual(15);
    const set = await macrotasksDuring(() => setInSlices(items, (n) => String(n % 500), new Slices(0)));
    expect(set.result).toEqual(new Set(items.map((n) => String(n % 500))));
    expect(set.ticks).toBeGreaterThanOrEqual(15);
  });
});

describe("parseStatus", () => {
  it("reads untracked and changed entries, with odd bytes in names, and skips what it cannot use", async () => {
    const odd = Buffer.from([0x66, 0xff, 0x0a, 0x20, 0x67]); // "f\xff\n g": not UTF-8, a newline, a space
    const data = nul([
      "? new.txt",
      "1 .M N... 100644 100644 100644 " + blob(1) + " " + blob(1) + " src/a b.ts",
      "1 A. N... 000000 100644 100644 " + blob(0) + " " + blob(2) + " added.ts",
      Buffer.concat([Buffer.from("? "), odd]),
      "? nested/", // a nested repository: not snapshotted
      "1 .M N... 100644", // cut short: skipped
      "2 R. N... 100644 100644 100644 x y R100 to", // renames are off; an unknown kind is skipped
      "? ",
    ]);
    const out = await parseStatus(data);
    expect([...out.values()].map((c) => [c.path.toString("latin1"), c.inHead])).toEqual([
      ["new.txt", false],
      ["src/a b.ts", true],
      ["added.ts", false],
      [odd.toString("latin1"), false],
    ]);
  });

  it("yields to the event loop while it reads a long status", async () => {
    const data = nul(Array.from({ length: 2000 }, (_, i) => `? many/file-${i}`));
    const { result, ticks } = await macrotasksDuring(() => parseStatus(data, new Slices(0)));
    expect(result.size).toBe(2000);
    expect(ticks).toBeGreaterThanOrEqual(30);
  });
});

describe("parseRawDiff", () => {
  it("reads each record, skips a tree id line and submodules", async () => {
    const data = nul([
      blob(9), // diff-tree with one commit prints the commit first
      `:100644 100644 ${blob(1)} ${blob(2)} M`,
      "a.txt",
      `:000000 100755 ${blob(0)} ${blob(3)} A`,
      ":odd name",
      `:160000 160000 ${blob(4)} ${blob(5)} M`,
      "vendor/sub",
      `:100644 000000 ${blob(6)} ${blob(0)} D`,
      "gone.txt",
      `:100644 100644 ${blob(7)} ${blob(8)} M`, // no path after it: dropped
    ]);
    const out = await parseRawDiff(data);
    expect(out.map((e) => [e.path.toString("latin1"), e.status, e.oldMode, e.newMode, e.oldBlob, e.newBlob])).toEqual([
      ["a.txt", "modified", "100644", "100644", blob(1), blob(2)],
      [":odd name", "added", "000000", "100755", blob(0), blob(3)],
      ["gone.txt", "deleted", "100644", "000000", blob(6), blob(0)],
    ]);
  });

  it("yields to the event loop while it reads a long diff", async () => {
    const data = nul(Array.from({ length: 2000 }, (_, i) => [`:000000 100644 ${blob(0)} ${blob(i + 1)} A`, `f-${i}`]).flat());
    const { result, ticks } = await macrotasksDuring(() => parseRawDiff(data, new Slices(0)));
    expect(result).toHaveLength(2000);
    expect(ticks).toBeGreaterThanOrEqual(60);
  });
});

describe("parseTree", () => {
  it("lists the blobs of a tree by path, not trees or submodules, and yields on a long one", async () => {
    const records = [`100644 blob ${blob(1)}\tx/a.txt`, `040000 tree ${blob(2)}\tx`, `160000 commit ${blob(3)}\tsub`, "garbage without a tab"];
    const out = await parseTree(nul(records));
    expect([...out.entries()].map(([k, v]) => [k, v.mode, v.blob, v.path.toString("latin1")])).toEqual([["x/a.txt", "100644", blob(1), "x/a.txt"]]);
    const many = nul(Array.from({ length: 2000 }, (_, i) => `100644 blob ${blob(i)}\tf-${i}`));
    const { result, ticks } = await macrotasksDuring(() => parseTree(many, new Slices(0)));
    expect(result.size).toBe(2000);
    expect(ticks).toBeGreaterThanOrEqual(30);
  });
});

describe("planRewind over many files", () => {
  it("plans every file by the same rules, yielding between slices", async () => {
    const diff = Array.from({ length: 1500 }, (_, i) => ({
      path: Buffer.from(`f-${i}`),
      status: "added" as const,
      oldMode: "000000",
      newMode: "100644",
      oldBlob: blob(0),
      newBlob: blob(i + 1),
    }));
    const lathe = new Set(diff.slice(0, 1000).map((d) => d.path.toString("latin1")));
    const outside = new Set(diff.slice(500, 1000).map((d) => d.path.toString("latin1")));
    const { result, ticks } = await macrotasksDuring(() =>
      planRewind(
        diff,
        [
          { lathe: true, paths: lathe },
          { lathe: false, paths: outside },
        ],
        [],
        [],
        new Slices(0),
      ),
    );
    const count = (reason: string, action: string) => result.filter((f) => f.reason === reason && f.action === action).length;
    expect([count("agent", "remove"), count("changed-outside", "keep"), count("yours", "keep")]).toEqual([500, 500, 500]);
    expect(ticks).toBeGreaterThanOrEqual(40);
  });
});
