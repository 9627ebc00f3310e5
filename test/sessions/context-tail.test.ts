// The status bar's context figure for a session opened at one page (contextTokensOfTail): on
// random transcripts (answers with and without usage, failures, compactions, edits and undos),
// every suffix that says it knows enough gives exactly what the whole transcript gives, and the
// whole transcript always knows. The compaction in force comes from the entries alone
// (compactionStateOf), as the opened page lists them.
import { describe, expect, it } from "vitest";
import type { AgentMessage, AssistantMessage, CustomMessage } from "../../app/shared/agent-types.ts";
import { emptyUsage } from "../../app/shared/agent-types.ts";
import { compactionDetails, compactionState, compactionStateOf } from "../../app/shared/compaction.ts";
import { contextTokens, contextTokensOfTail } from "../../app/main/sessions/context.ts";
import type { ActiveCompaction } from "../../app/shared/compaction.ts";

/** A small deterministic PRNG, so a failure can be reproduced. */
function seeded(seed: number): () => number {
  return () => {
    seed = (seed * 1103515245 + 12345) & 0x7fffffff;
    return seed / 0x7fffffff;
  };
}

function answer(random: () => number, withUsage: boolean, failed: boolean): AssistantMessage {
  const usage = emptyUsage();
  if (withUsage) Object.assign(usage, { input: 100 + Math.floor(random() * 900), output: 50, totalTokens: 1 });
  return {
    role: "assistant",
    content: failed && random() < 0.5 ? [] : [{ type: "text", text: "x".repeat(Math.floor(random() * 400)) }],
    api: "x",
    provider: "x",
    model: "x",
    usage,
    stopReason: failed ? "error" : "stop",
    timestamp: 1,
  };
}

function transcript(random: () => number): AgentMessage[] {
  const out: AgentMessage[] = [];
  const n = 5 + Math.floor(random() * 60);
  for (let i = 0; i < n; i++) {
    const r = random();
    if (r < 0.35) out.push({ role: "user", content: "u".repeat(Math.floor(random() * 300)), timestamp: 1 });
    else if (r < 0.75) out.push(answer(random, random() < 0.4, random() < 0.15));
    else if (r < 0.88 && out.length > 2) {
      const compactions = out.flatMap((m, p) => (m.role === "custom" && m.customType === "compaction" ? [p] : []));
      const edit = compactions.length > 0 && random() < 0.3 ? compactions.at(-1) : undefined;
      const entry: CustomMessage = {
        role: "custom",
        customType: "compaction",
        content: "summary ".repeat(Math.floor(random() * 40)),
        display: true,
        details: {
          firstKeptIndex: 1 + Math.floor(random() * (out.length - 1)),
          tokensBefore: 1,
          tokensAfter: 1,
          trigger: edit === undefined ? "manual" : "edit",
          ...(edit === undefined ? {} : { replaces: edit }),
        },
        timestamp: 1,
      };
      out.push(entry);
    } else {
      const compactions = out.flatMap((m, p) => (m.role === "custom" && m.customType === "compaction" ? [p] : []));
      if (compactions.length > 0)
        out.push({
          role: "custom",
          customType: "compaction_undo",
          content: "undone",
          display: true,
          details: { undoes: compactions[Math.floor(random() * compactions.length)] },
          timestamp: 1,
        });
    }
  }
  return out;
}

function activeOf(messages: readonly AgentMessage[]): ActiveCompaction | undefined {
  const entries = messages.flatMap((message, position) => (message.role === "custom" ? [{ position, message }] : []));
  const state = compactionStateOf(entries);
  expect(state).toEqual(compactionState(messages));
  if (state.activeIndex === null) return undefined;
  const entry = messages[state.activeIndex] as CustomMessage;
  return { index: state.activeIndex, entry, details: compactionDetails(entry.details)! };
}

describe("context tokens from the newest messages", () => {
  it("equal the whole transcript's figure whenever the tail says it knows, and the whole transcript always knows", () => {
    let known = 0;
    let unknown = 0;
    for (let seed = 1; seed <= 300; seed++) {
      const messages = transcript(seeded(seed));
      const expected = contextTokens(messages);
      const active = activeOf(messages);
      expect(contextTokensOfTail(messages, 0, active), `seed ${seed}`).toBe(expected);
      for (let start = 1; start <= messages.length; start++) {
        const figure = contextTokensOfTail(messages.slice(start), start, active);
        if (figure === null) unknown++;
        else {
          known++;
          expect(figure, `seed ${seed}, tail from ${start}`).toBe(expected);
        }
      }
    }
    expect(known).toBeGreaterThan(1000);
    expect(unknown).toBeGreaterThan(100);
  });
});
