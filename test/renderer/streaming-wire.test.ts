// The streaming message on the wire (app/shared/streaming-message.ts, app/main/ipc/event-batcher.ts):
// a `message_update` carries what changed, and the renderer's model rebuilds the message from the
// updates. Driven end to end in Node: a provider's MessageBuilder (which changes its message in
// place, ahead of the events the loop has taken), the real loop, the event hub, a batcher whose
// batches are sent as JSON and checked against the contract, and the renderer's applyEvents.
// - Over a scripted stream of thinking (with a signature sent in pieces), text, tool calls
//   (arguments parsed as they arrive, a name sent late, malformed JSON) and usage, the rebuilt
//   message equals the final one at its message_end, for a view that saw the whole stream and
//   for views opened from a snapshot (the main process's live view, numbered) at random moments.
// - A 20 MB answer streamed in 100-byte pieces costs O(n) bytes on the wire, counted through the
//   EventSender: the deltas and the final message once each (the whole-message form sent the
//   message with every batch: O(n²)); so does a 3.9 MB tool call.
import { describe, expect, it } from "vitest";
import {
  AssistantEventStream,
  defaultConvertToLlm,
  emptyAssistantMessage,
  runAgentLoop,
  type AgentContext,
  type AgentLoopConfig,
  type StreamFn,
} from "../../app/main/loop/index.ts";
import { MessageBuilder } from "../../app/main/providers/message-builder.ts";
import { EventHub } from "../../app/main/ipc/event-hub.ts";
import { EventBatcher } from "../../app/main/ipc/event-batcher.ts";
import { LiveActivity } from "../../app/main/sessions/live-activity.ts";
import { scriptedModelInfo } from "../../app/main/loop/test/scripted-model.ts";
import type { AssistantMessage, AssistantMessageEvent } from "../../app/shared/agent-types.ts";
import { events as eventSchemas, type EventPayload } from "../../app/shared/ipc/contract.ts";
import { checkerFor, schemaErrorLines } from "../../app/shared/schema-check.ts";
import { applyEvents, emptyModel, type SessionModel } from "../../app/renderer/src/state/session-model.ts";

type Batch = EventPayload<"session.events">;
type Play = (b: MessageBuilder, tick: () => Promise<void>) => Promise<void>;
/** A stream function's own way (no MessageBuilder, no answer limit): the message changed in place, each event pushed. */
type RawPlay = (message: AssistantMessage, push: (event: AssistantMessageEvent) => void, tick: () => Promise<void>) => Promise<void>;

const SESSION = 1;
const batchCheck = checkerFor(eventSchemas["session.events"]);

/** A seeded random source (the same stream on every run). */
function random(seed: number): () => number {
  let s = seed;
  return () => (s = (s * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
}

interface Snapshot {
  seq: number;
  streaming: AssistantMessage | null;
}

interface Run {
  batches: Batch[];
  /** Characters of JSON sent as session.events payloads. */
  bytes: number;
  snapshots: Snapshot[];
  finals: AssistantMessage[];
}

/**
 * Streams `plays` (one assistant message each) through the loop, the hub and a batcher. `tick`
 * lets the loop take what the provider pushed (a macrotask), flushing the batcher every
 * `flushEvery` ticks (a frame) and taking a snapshot as sessions.open does at random ticks.
 */
async function stream(plays: (Play | { raw: RawPlay })[], options: { flushEvery: number; snapshotChance?: number; seed?: number; validate?: boolean }): Promise<Run> {
  const failures: string[] = [];
  const hub = new EventHub((what, error) => failures.push(`${what}: ${String(error)}`));
  const run: Run = { batches: [], bytes: 0, snapshots: [], finals: [] };
  hub.add(
    new EventBatcher((event, payload) => {
      if (event !== "session.events") return;
      const text = JSON.stringify(payload);
      run.bytes += text.length;
      const batch = JSON.parse(text) as Batch;
      if (options.validate !== false && !batchCheck.Check(batch)) throw new Error(`a batch off the contract:\n${schemaErrorLines(batchCheck, batch).join("\n")}`);
      run.batches.push(batch);
    }, 1_000_000),
  );
  const live = new LiveActivity();
  hub.add({ sessionEvent: (_id, event) => live.track(event), emit: () => {} });
  const rand = random(options.seed ?? 7);
  let ticks = 0;
  const snapshot = () => {
    if (!options.snapshotChance || rand() >= options.snapshotChance) return;
    hub.flush();
    run.snapshots.push({ seq: hub.seqOf(SESSION), streaming: JSON.parse(JSON.stringify(live.snapshot(() => "").streaming)) as AssistantMessage | null });
  };
  const tick = async () => {
    // Before the loop has taken what the provider pushed: its message is ahead of the events.
    snapshot();
    await new Promise((resolve) => setImmediate(resolve));
    if (++ticks % options.flushEvery === 0) hub.flush();
    snapshot();
  };
  const queue = [...plays];
  const streamFn: StreamFn = (model) => {
    const events = new AssistantEventStream();
    const play = queue.shift()!;
    if ("raw" in play) {
      const message = emptyAssistantMessage(model);
      void (async () => {
        events.push({ type: "start", partial: message });
        await play.raw(message, (event) => events.push(event), tick);
        run.finals.push(message);
        events.push({ type: "done", reason: "stop", message });
      })();
      return events;
    }
    const builder = new MessageBuilder(model, events);
    void (async () => {
      builder.start();
      await play(builder, tick);
      run.finals.push(builder.finish(builder.hasToolCalls ? "toolUse" : "stop"));
    })();
    return events;
  };
  const context: AgentContext = { systemPrompt: "test", messages: [], tools: [] };
  const config: AgentLoopConfig = { model: scriptedModelInfo, convertToLlm: defaultConvertToLlm, shouldStopAfterTurn: () => queue.length === 0 };
  await runAgentLoop([{ role: "user", content: "go", timestamp: 1 }], context, config, (event) => hub.sessionEvent(SESSION, event), undefined, streamFn);
  hub.flush();
  expect(failures).toEqual([]);
  return run;
}

/**
 * Applies the batches after `from` (a snapshot's number) as session-sync.ts does, and checks at
 * every assistant message_end that the rebuilt message has the final one's content. Returns how
 * many answers were checked.
 */
function replay(run: Run, start: SessionModel, from: number): number {
  let model = start;
  let checked = 0;
  for (const batch of run.batches) {
    if (batch.toSeq <= from) continue;
    const events = batch.events.filter((_, i) => batch.seqs[i]! > from);
    let pending: typeof events = [];
    for (const event of events) {
      if (event.type === "message_end" && event.message.role === "assistant") {
        model = applyEvents(model, pending, 0);
        pending = [];
        expect(model.outOfStep).toBe(false);
        expect(model.streaming?.content).toEqual(event.message.content);
        checked++;
      }
      pending.push(event);
    }
    model = applyEvents(model, pending, 0);
    expect(model.outOfStep).toBe(false);
  }
  return checked;
}

/** Sends `text` in pieces of 1 to `max` characters, ticking now and then. */
async function piecewise(text: string, max: number, rand: () => number, send: (piece: string) => void, tick: () => Promise<void>): Promise<void> {
  for (let at = 0; at < text.length;) {
    const size = 1 + Math.floor(rand() * max);
    send(text.slice(at, at + size));
    at += size;
    if (rand() < 0.3) await tick();
  }
}

const scripted: (seed: number) => Play[] = (seed) => {
  const rand = random(seed);
  return [
    async (b, tick) => {
      b.setUsage({ input: 120, output: 0, cacheRead: 30, cacheWrite: 0 });
      const t = b.thinkingStart();
      await piecewise('Let me think about ünïcode, "quotes" and\nnew lines… 🙂 '.repeat(8), 9, rand, (p) => b.thinkingDelta(t, p), tick);
      b.setThinkingSignature(t, "sig-", true);
      b.setThinkingSignature(t, "nature", true);
      b.endBlock(t);
      const x = b.textStart();
      await piecewise("Here is the plan:\n\n- one\n- two\n\n```ts\nconst a = 1;\n```\n".repeat(10), 13, rand, (p) => b.textDelta(x, p), tick);
      b.endBlock(x);
      const w = b.toolCallStart("call_w", "write");
      await piecewise(JSON.stringify({ path: "src/a.ts", content: "export const x = 1;\n".repeat(300) }), 40, rand, (p) => b.toolCallDelta(w, p), tick);
      b.endBlock(w);
      const late = b.toolCallStart("", "");
      b.toolCallDelta(late, '{"comm');
      await tick();
      b.patchToolCall(late, { id: "call_late", name: "bash" });
      await piecewise('and":"ls -la"}', 3, rand, (p) => b.toolCallDelta(late, p), tick);
      b.endBlock(late);
      const bad = b.toolCallStart("call_bad", "read");
      await piecewise('{"path": [1, 2', 4, rand, (p) => b.toolCallDelta(bad, p), tick);
      b.endBlock(bad);
      b.setUsage({ input: 120, output: 900, cacheRead: 30, cacheWrite: 0 });
    },
    async (b, tick) => {
      const x = b.textStart();
      await piecewise("Done. ".repeat(50), 5, rand, (p) => b.textDelta(x, p), tick);
      const t = b.thinkingStart({ redacted: true, thinkingSignature: "opaque" });
      b.endBlock(t);
      b.endBlock(x);
    },
  ];
};

describe("the streaming message on the wire", () => {
  it("is rebuilt exactly from its updates: thinking, text, tool calls, a late name, malformed arguments", async () => {
    const run = await stream(scripted(11), { flushEvery: 3 });
    expect(run.finals).toHaveLength(2);
    expect(run.finals[0]!.content.map((b) => b.type)).toEqual(["thinking", "text", "toolCall", "toolCall", "toolCall"]);
    expect(run.finals[0]!.content[3]).toMatchObject({ id: "call_late", name: "bash", arguments: { command: "ls -la" } });
    expect(run.finals[0]!.content[4]).toMatchObject({ argumentsError: expect.any(String), rawArguments: '{"path": [1, 2' });
    expect(replay(run, emptyModel(), 0)).toBe(2);
    // No update carries the message; message_start and message_end do.
    const all = run.batches.flatMap((b) => b.events);
    expect(all.some((e) => e.type === "message_update" && "message" in e)).toBe(false);
    expect(all.filter((e) => e.type === "message_update").length).toBeGreaterThan(20);
  });

  it("a view opened from a snapshot at any moment rebuilds each answer exactly", async () => {
    for (const seed of [1, 2, 3]) {
      const run = await stream(scripted(seed), { flushEvery: 4, snapshotChance: 0.15, seed });
      const midStream = run.snapshots.filter((s) => s.streaming && s.streaming.content.length > 0);
      expect(midStream.length).toBeGreaterThan(5);
      for (const snapshot of midStream) {
        const start: SessionModel = { ...emptyModel(), running: true, streaming: snapshot.streaming };
        expect(replay(run, start, snapshot.seq)).toBeGreaterThanOrEqual(1);
      }
    }
  });

  it("a 20 MB answer in 100-byte pieces costs O(n) on the wire and rebuilds exactly", async () => {
    const piece = "abcdefghij".repeat(10);
    const pieces = 200_000;
    // Past the providers' MAX_ANSWER_CHARS (8 million): a stream function of its own, as the loop allows.
    const run = await stream(
      [
        {
          raw: async (message, push, tick) => {
            const block = { type: "text" as const, text: "" };
            message.content.push(block);
            push({ type: "text_start", contentIndex: 0, partial: message });
            for (let i = 0; i < pieces; i++) {
              block.text += piece;
              push({ type: "text_delta", contentIndex: 0, delta: piece, partial: message });
              if (i % 500 === 499) await tick();
            }
            push({ type: "text_end", contentIndex: 0, content: block.text, partial: message });
          },
        },
      ],
      { flushEvery: 1, validate: false },
    );
    const n = piece.length * pieces;
    expect(run.batches.length).toBeGreaterThan(300);
    // The deltas once, then the final message once (message_end), plus a little per batch.
    expect(run.bytes).toBeLessThan(2 * n + 200 * run.batches.length);
    expect(replay(run, emptyModel(), 0)).toBe(1);
  }, 60_000);

  it("a 3.9 MB tool call costs O(n) on the wire: its arguments are sent now and then", async () => {
    const args = JSON.stringify({ path: "big.txt", content: "x".repeat(3_900_000) });
    const run = await stream(
      [
        async (b, tick) => {
          const c = b.toolCallStart("call_big", "write");
          for (let at = 0; at < args.length; at += 100) {
            b.toolCallDelta(c, args.slice(at, at + 100));
            if (at % 50_000 === 0) await tick();
          }
          b.endBlock(c);
        },
      ],
      { flushEvery: 1, validate: false },
    );
    const n = args.length;
    const updates = run.batches.flatMap((b) => b.events).filter((e) => e.type === "message_update");
    const withArguments = updates.filter((e) => e.assistantMessageEvent.type === "toolcall_delta" && e.assistantMessageEvent.arguments !== undefined);
    expect(withArguments.length).toBeGreaterThan(3);
    expect(withArguments.length).toBeLessThan(30);
    // The deltas once, the final call three times (toolcall_end, message_end, tool_execution_start),
    // partial arguments under 2 × 256 KB; the batches' own bytes.
    expect(run.bytes).toBeLessThan(4 * n + 2 * 262_144 + 200 * run.batches.length);
    expect(replay(run, emptyModel(), 0)).toBe(1);
  }, 60_000);
});
