// The model's view of bash output is byte-identical to what it was before the output path was
// rewritten for speed (issue 16): result text, line and byte counts, truncation notes, redactions
// and the saved file, for a fixed set of commands (bash-golden.ts).
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { GOLDEN_CASES, GOLDEN_FILE, runGoldenCases, type GoldenResult } from "./bash-golden.ts";

describe("bash output for the model", () => {
  it("is unchanged for every golden command", async () => {
    const expected = JSON.parse(readFileSync(GOLDEN_FILE, "utf8")) as Record<string, GoldenResult>;
    expect(Object.keys(expected)).toEqual(GOLDEN_CASES.map(([name]) => name));
    const actual = await runGoldenCases();
    for (const [name] of GOLDEN_CASES) expect(actual[name], name).toEqual(expected[name]);
  }, 120_000);
});
