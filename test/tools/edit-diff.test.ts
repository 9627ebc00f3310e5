// Edit matching (linear, bounded errors) and bounded diffs: the windowed diff of an edit and the
// region diff of a write are real unified diffs (jsdiff's applyPatch turns the old text into the
// new one), and whatever is over the bounds is summarized, never computed in full.
import { applyPatch } from "diff";
import { describe, expect, it } from "vitest";
import { boundedEditDiff, boundedTextDiff, DIFF_MAX_LINES } from "../../app/main/tools/bounded-diff.ts";
import { applyEdits, applySplices, EditError, normalizeForMatch, planEdits } from "../../app/main/tools/edit-match.ts";

/** A deterministic pseudo-random generator, so a failure can be replayed. */
function random(seed: number): () => number {
  let s = seed;
  return () => {
    s = (s * 1103515245 + 12345) & 0x7fffffff;
    return s / 0x7fffffff;
  };
}

function randomText(rand: () => number, lines: number): string {
  const words = ["alpha", "beta", "gamma", "delta", "", "  indent", "}", "{"];
  const out: string[] = [];
  for (let i = 0; i < lines; i++) out.push(`${words[Math.floor(rand() * words.length)]} ${i}`);
  return out.join("\n") + (rand() < 0.5 ? "\n" : "");
}

describe("edit matching", () => {
  it("tells an overlapping second occurrence apart from a unique one", () => {
    expect(() => planEdits("aaa", [{ oldText: "aa", newText: "b" }])).toThrow(/found 2 times/);
    expect(planEdits("aab", [{ oldText: "ab", newText: "c" }]).splices).toEqual([{ start: 1, end: 3, newText: "c" }]);
  });

  it("lists at most five matches, with the total, in one pass", () => {
    const text = "x\n".repeat(100_000);
    const error = (() => {
      try {
        planEdits(text, [{ oldText: "x", newText: "y" }]);
      } catch (e) {
        return e as EditError;
      }
    })();
    expect(error).toBeInstanceOf(EditError);
    expect(error!.message).toBe(
      "Edit #1: oldText is found 100000 times (at lines 1, 2, 3, 4, 5, and 99995 more); it must match exactly once. Include more surrounding lines to make it unique.",
    );
  });

  it("maps a normalised match back to the original text across dropped trailing whitespace", () => {
    const original = "a = \u201Cx\u201D;  \t\nb = 1;   \nc = \u2018y\u2019;\n";
    const normalized = normalizeForMatch(original);
    expect(normalized.text).toBe("a = \"x\";\nb = 1;\nc = 'y';\n");
    const at = normalized.text.indexOf("c =");
    expect(original.slice(normalized.originalIndex(at), normalized.originalIndex(at) + 3)).toBe("c =");
    const result = applyEdits(original, [{ oldText: "b = 1;\nc = 'y';", newText: "B" }]);
    expect(result).toEqual({ content: "a = \u201Cx\u201D;  \t\nB\n", normalizedEdits: [0] });
  });

  it("quotes at most 300 characters of any line in a not-found hint", () => {
    const long = `${"z".repeat(100_000)} marker`;
    const error = (() => {
      try {
        planEdits(`${long}\nshort\n`, [{ oldText: `${"z".repeat(500)}Q`, newText: "y" }]);
      } catch (e) {
        return e as EditError;
      }
    })();
    expect(error!.kind).toBe("not_found");
    expect(error!.message.length).toBeLessThan(1_000);
    expect(error!.message).toContain("… [line cut]");
  });
});

describe("bounded diffs", () => {
  it("an edit's windowed diff applies to the old text and gives the new one (200 random cases)", () => {
    const rand = random(21);
    for (let n = 0; n < 200; n++) {
      const original = randomText(rand, 1 + Math.floor(rand() * 60));
      const splices: { start: number; end: number; newText: string }[] = [];
      let at = 0;
      while (at < original.length && splices.length < 4) {
        const start = at + Math.floor(rand() * Math.min(80, original.length - at));
        const end = Math.min(original.length, start + 1 + Math.floor(rand() * 30));
        if (start >= original.length) break;
        splices.push({ start, end, newText: rand() < 0.3 ? "" : `new ${n}\nline ${splices.length}${rand() < 0.5 ? "\n" : ""}` });
        at = end + Math.floor(rand() * 40);
      }
      if (splices.length === 0) continue;
      const expected = applySplices(original, splices);
      const diff = boundedEditDiff("a/f", "b/f", original, splices);
      expect(diff.complete).toBe(true);
      expect(applyPatch(original, diff.text), `case ${n}:\n${diff.text}`).toBe(expected);
    }
  });

  it("a write's region diff applies too (200 random cases)", () => {
    const rand = random(2121);
    for (let n = 0; n < 200; n++) {
      const before = randomText(rand, Math.floor(rand() * 50));
      const lines = before.split("\n");
      const from = Math.floor(rand() * lines.length);
      lines.splice(from, Math.floor(rand() * 5), ...Array.from({ length: Math.floor(rand() * 4) }, (_, i) => `inserted ${i}`));
      const after = lines.join("\n");
      const diff = boundedTextDiff("a/f", "b/f", before, after);
      expect(applyPatch(before, diff.text), `case ${n}:\n${diff.text}`).toBe(after);
    }
  });

  it("summarizes a region over the bounds and cuts the text at the line bound", () => {
    const before = Array.from({ length: 30_000 }, (_, i) => `old ${i}`).join("\n");
    const after = Array.from({ length: 30_000 }, (_, i) => `new ${i}`).join("\n");
    const summary = boundedTextDiff("a/f", "b/f", before, after);
    expect(summary.complete).toBe(false);
    expect(summary.firstChangedLine).toBe(1);
    expect(summary.text.split("\n").length).toBeLessThan(210);
    // Many small hunks within the bounds: shown in full up to DIFF_MAX_LINES lines, then cut.
    const shorter = before.split("\n").slice(0, 6_000);
    const spaced = shorter.map((l, i) => (i % 20 === 0 ? `changed ${i}` : l)).join("\n");
    const cut = boundedTextDiff("a/f", "b/f", shorter.join("\n"), spaced);
    expect(cut.complete).toBe(false);
    expect(cut.text.split("\n").length).toBe(DIFF_MAX_LINES + 4);
    expect(cut.text).toMatch(/@@ diff cut at 2,000 lines: [\d,]+ more not shown @@\n$/);
  });

  it("cuts enormous lines", () => {
    const diff = boundedTextDiff("a/f", "b/f", "short\n", `${"y".repeat(5_000_000)}\n`);
    expect(diff.text.length).toBeLessThan(3_000);
    expect(diff.text).toContain("… [line cut]");
  });
});
