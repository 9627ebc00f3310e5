// The model's view of bash output is byte-identical to what it was before the output path was
// rewritten for speed (issue 16): result text, line and byte counts, truncation notes, redactions
// and the saved file, for a fixed set of commands (bash-golden.ts).
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { GOLDEN_CASES, GOLDEN_FILE, runGoldenCases, type GoldenResult } from "./bash-golden.ts";

describe("bash output for the model", () => {
  // Through the native terminal reader (app/main/tools/pty-reader.ts) where it is built, and
  // through node-pty's events, the fallback.
  it.each(["default", "node"])(
    "is unchanged for every golden command (terminal reader: %s)",
    async (reader) => {
      const expected = JSON.parse(readFileSync(GOLDEN_FILE, "utf8")) as Record<string, GoldenResult>;
      expect(Object.keys(expected)).toEqual(GOLDEN_CASES.map(([name]) => name));
      const before = process.env.LATHE_PTY_READER;
      if (reader === "node") process.env.LATHE_PTY_READER = "node";
      try {
        const actual = await runGoldenCases();
        for (const [name] of GOLDEN_CASES) expect(actual[name], name).toEqual(expected[name]);
      } finally {
        if (before === undefined) delete process.env.LATHE_PTY_READER;
        else process.env.LATHE_PTY_READER = before;
      }
    },
    120_000,
  );
});
