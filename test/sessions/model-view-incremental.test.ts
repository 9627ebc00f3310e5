// The model's view is built before every request from the messages added since the last one
// (sessions/context.ts over loop/incremental-conversion.ts). At every length of a growing
// transcript, through compactions, edits and undos of them, rewinds and failed answers, it must
// equal the view built from scratch (a structured copy: other objects, so nothing cached applies),
// and the compaction in force must equal shared/compaction.ts's; a truncated transcript gets its
// own view. The summary and rewind messages keep their identity, which the providers' cache needs.
import { describe, expect, test } from "vitest";
import type { AgentMessage, AssistantMessage, CustomMessage } from "../../app/shared/agent-types.ts";
import { emptyUsage } from "../../app/shared/agent-types.ts";
import { activeCompaction } from "../../app/shared/compaction.ts";
import { CHECKPOINT_REWIND } from "../../app/shared/ipc/checkpoint-schemas.ts";
import { activeCompactionOf, contextTokens, modelView } from "../../app/main/sessions/context.ts";

const user = (text: string): AgentMessage => ({ role: "user", content: text, timestamp: 1 });
const answer = (text: string, extra: Partial<AssistantMessage> = {}): AssistantMessage => ({
  role: "assistant",
  content: text === "" ? [] : [{ type: "text", text }],
  api: "x",
  provider: "x",
  model: "x",
  usage: emptyUsage(),
  stopReason: "stop",
  timestamp: 1,
  ...extra,
});
const custom = (customType: string, content: string, details?: object): CustomMessage => ({ role: "custom", customType, content, display: true, details, timestamp: 2 });

/** A transcript that goes through every kind of entry the view treats differently. */
function script(): AgentMessage[] {
  const out: AgentMessage[] = [];
  const add = (...messages: AgentMessage[]) => out.push(...messages);
  add(user("one"), answer("a"), user("two"), answer("", { stopReason: "error", errorMessage: "boom" }), answer("b"));
  add(custom("note", "an app notice"), user("three"), answer("c"));
  add(custom("compaction", "S1", { firstKeptIndex: 6, trigger: "manual" }));
  add(user("four"), answer("d"), custom(CHECKPOINT_REWIND, "Files rewound to turn 2."), user("five"));
  add(custom("compaction", "S1 edited", { firstKeptIndex: 6, trigger: "edit", replaces: 8 }));
  add(answer("e", { stopReason: "aborted", errorMessage: "stopped" }), user("six"), answer("f"));
  add(custom("compaction_undo", "", { undoes: 13 }));
  add(user("seven"), answer("", { stopReason: "error", contextOverflow: true, errorMessage: "too long" }));
  add(custom("compaction", "S2", { firstKeptIndex: 16, trigger: "threshold" }), user("eight"), answer("g"));
  add(custom("compaction", "odd", { firstKeptIndex: 999, trigger: "manual" }), user("nine"));
  return out;
}

describe("the model's view, built incrementally", () => {
  test("at every length it equals the view from scratch, and the compaction in force is the same", () => {
    const full = script();
    const growing: AgentMessage[] = [];
    for (const message of full) {
      growing.push(message);
      const copy = [...growing];
      expect(modelView(copy), `${growing.length} messages`).toEqual(modelView(structuredClone(growing)));
      expect(activeCompactionOf(copy)).toEqual(activeCompaction(copy));
      expect(contextTokens(copy)).toBe(contextTokens(structuredClone(growing)));
    }
  });

  test("a truncated transcript (before its compaction) gets its own view; each call a new array", () => {
    const full = script();
    const compacted = modelView(full);
    expect(compacted[0]).toMatchObject({ role: "user" });
    const before = full.slice(0, 8);
    expect(modelView(before)).toEqual(modelView(structuredClone(before)));
    expect(JSON.stringify(modelView(before))).not.toContain("S1");
    expect(activeCompactionOf(before)).toBeUndefined();
    expect(modelView(full)).toEqual(compacted);
    expect(modelView(full)).not.toBe(modelView(full));
  });

  test("the summary and the rewind note are the same objects from one request to the next", () => {
    const transcript = script().slice(0, 12);
    const first = modelView(transcript);
    transcript.push(user("more"));
    const second = modelView(transcript);
    expect(second[0]).toBe(first[0]);
    const note = first.find((m) => m.role === "user" && typeof m.content === "string" && m.content.startsWith("[Lathe]"));
    expect(note).toBeDefined();
    expect(second).toContain(note);
  });
});
