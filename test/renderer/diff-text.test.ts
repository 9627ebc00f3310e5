// What the edit and write cards show: the tool's bounded diff once it ran, and before that a
// preview from the arguments that stays small whatever their size.
import { describe, expect, it } from "vitest";
import { editArgsDiff, PREVIEW_LINES, writeArgsDiff, writeCardDiff } from "../../app/renderer/src/session/diff-text.ts";
import type { WriteDetails } from "../../app/shared/tool-details.ts";

describe("card diffs", () => {
  it("a write card shows the tool's diff against the previous content when there is one", () => {
    const details = { path: "a.txt", diff: "--- a.txt\n+++ a.txt\n@@ -1,1 +1,1 @@\n-old\n+new\n" } as WriteDetails;
    expect(writeCardDiff("a.txt", "new\n", details)).toEqual({ diff: details.diff, label: "Changes to a.txt" });
    expect(writeCardDiff("a.txt", "new\n", undefined)).toEqual({ diff: "+++ a.txt\n+new\n+", label: "Content written to a.txt" });
  });

  it("argument previews are cut, however large the arguments", () => {
    const huge = "line\n".repeat(400_000);
    const edit = editArgsDiff("big.txt", [{ oldText: huge, newText: `${"x".repeat(1_000_000)}\n${huge}` }]);
    expect(edit.split("\n").length).toBeLessThan(2 * PREVIEW_LINES + 10);
    expect(edit.length).toBeLessThan(20_000);
    expect(edit).toContain("@@ more lines not shown @@");
    expect(writeArgsDiff("big.txt", huge).split("\n").length).toBe(PREVIEW_LINES + 2);
  });
});
