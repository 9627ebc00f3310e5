// The status bar's words for what the agent does, and the live token and cost count of the answer
// being written.
import { describe, expect, test } from "vitest";
import type { AssistantMessage } from "../../app/shared/agent-types.ts";
import { describeActivity, streamingUsage } from "../../app/renderer/src/state/activity.ts";
import { newCard } from "../../app/renderer/src/state/tool-cards.ts";
import type { ToolCardState } from "../../app/renderer/src/state/session-model.ts";

const usage = { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, totalTokens: 0, cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 } };
const message = (content: AssistantMessage["content"], u = usage): AssistantMessage => ({
  role: "assistant",
  content,
  api: "openai-completions",
  provider: "p",
  model: "m",
  usage: u,
  stopReason: "stop",
  timestamp: 1,
});
const cards = (...states: [string, ToolCardState["status"]][]) => new Map(states.map(([name, status], i) => [String(i), { ...newCard(String(i), name, {}, 0), status }]));

describe("describeActivity", () => {
  const base = { running: true, pendingPermissions: 0, retrying: false, tools: new Map(), streaming: null };
  test("says what the agent is doing, the person's approval first", () => {
    expect(describeActivity({ ...base, running: false })).toBeNull();
    expect(describeActivity({ ...base, pendingPermissions: 1, tools: cards(["bash", "running"]) })).toBe("Waiting for your approval");
    expect(describeActivity({ ...base, pendingPermissions: 3 })).toBe("Waiting for your approval (3 calls)");
    expect(describeActivity({ ...base, tools: cards(["bash", "running"], ["read", "running"], ["grep", "running"]) })).toBe("Running 3 tools");
    expect(describeActivity({ ...base, tools: cards(["bash", "running"], ["read", "done"]) })).toBe("Running bash");
    expect(describeActivity({ ...base, streaming: message([{ type: "thinking", thinking: "x" }]) })).toBe("Thinking");
    expect(describeActivity({ ...base, streaming: message([{ type: "text", text: "x" }]) })).toBe("Writing");
    expect(describeActivity({ ...base, streaming: message([]) })).toBe("Waiting for the model");
    expect(describeActivity({ ...base, tools: cards(["bash", "queued"]) })).toBe("Preparing tools");
    // A retry has its own countdown notice.
    expect(describeActivity({ ...base, retrying: true })).toBeNull();
  });
});

describe("streamingUsage", () => {
  const price = { cost: { input: 3, output: 15, cacheRead: 0.3, cacheWrite: 3.75 } };
  test("estimates from the context and the text so far when the provider sends no usage yet", () => {
    const live = streamingUsage(message([{ type: "text", text: "x".repeat(400) }]), 10_000, price);
    expect(live).toEqual({ tokens: 10_100, cost: (10_000 * 3 + 100 * 15) / 1_000_000, estimated: true });
  });
  test("uses the streamed usage when there is one", () => {
    const live = streamingUsage(message([{ type: "text", text: "abcd" }], { ...usage, input: 2000, output: 50 }), 10_000, price);
    expect(live).toEqual({ tokens: 2050, cost: (2000 * 3 + 50 * 15) / 1_000_000, estimated: false });
    expect(streamingUsage(null, 5, price)).toEqual({ tokens: 0, cost: 0, estimated: false });
  });
});
