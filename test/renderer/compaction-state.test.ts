// The session view's reading of compaction entries: which one is in force, which messages it
// summarizes, and why the others are not in force (replaced by an edit, undone, superseded).
import { describe, expect, test } from "vitest";
import type { AgentMessage, CustomMessage } from "../../app/shared/agent-types.ts";
import { compactionState } from "../../app/renderer/src/state/compaction.ts";

const user = (text: string): AgentMessage => ({ role: "user", content: text, timestamp: 0 });
const compaction = (firstKeptIndex: number, replaces?: number): CustomMessage => ({
  role: "custom",
  customType: "compaction",
  content: "summary",
  display: true,
  details: { firstKeptIndex, tokensBefore: 1000, tokensAfter: 100, trigger: replaces === undefined ? "manual" : "edit", ...(replaces === undefined ? {} : { replaces }) },
  timestamp: 0,
});
const undo = (undoes: number): CustomMessage => ({ role: "custom", customType: "compaction_undo", content: "undone", display: true, details: { undoes }, timestamp: 0 });

describe("compactionState", () => {
  test("no compaction: nothing is summarized", () => {
    const state = compactionState([user("a"), user("b")]);
    expect(state.activeIndex).toBeNull();
    expect(state.firstKeptIndex).toBe(0);
  });

  test("the newest compaction is in force and an older one is superseded", () => {
    const state = compactionState([user("a"), user("b"), compaction(1), user("c"), compaction(3)]);
    expect(state.activeIndex).toBe(4);
    expect(state.firstKeptIndex).toBe(3);
    expect(state.statusOf.get(2)).toBe("superseded");
    expect(state.statusOf.get(4)).toBe("active");
  });

  test("an edit replaces its original; undoing the edit undoes both and nothing is summarized", () => {
    const edited = [user("a"), user("b"), compaction(1), compaction(1, 2)];
    const state = compactionState(edited);
    expect(state.activeIndex).toBe(3);
    expect(state.statusOf.get(2)).toBe("replaced");
    const undone = compactionState([...edited, undo(3)]);
    expect(undone.activeIndex).toBeNull();
    expect(undone.firstKeptIndex).toBe(0);
    expect(undone.statusOf.get(3)).toBe("undone");
    expect(undone.statusOf.get(2)).toBe("replaced");
  });

  test("undoing the newest compaction puts the previous one back in force", () => {
    const state = compactionState([user("a"), user("b"), compaction(1), user("c"), compaction(3), undo(4)]);
    expect(state.activeIndex).toBe(2);
    expect(state.firstKeptIndex).toBe(1);
    expect(state.statusOf.get(4)).toBe("undone");
    expect(state.statusOf.get(2)).toBe("active");
  });
});
