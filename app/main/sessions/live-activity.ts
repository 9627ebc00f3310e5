// What a session's live view holds beyond its stored transcript, kept from the session's events as
// they pass (LiveSession feeds it every event, in order): the assistant message streaming, the
// provider's retry notice, and the tool calls whose results are not in the transcript yet, with
// their progress and phase. The tools' output is not kept here (the recorder keeps it): snapshot()
// is given a way to read it. Owns nothing else; never throws.
//
// The streaming message is a copy rebuilt from the events (applyStreamUpdate, as a renderer does
// with the wire form), not the provider's message: that one is changed in place as chunks arrive
// and can be ahead of the events emitted so far, and a snapshot numbered N must hold exactly the
// text of the events up to N (the renderer appends the deltas numbered after N). O(delta) per event.
import type { AssistantMessage, ProviderRetry, SessionEvent } from "../../shared/agent-types.ts";
import type { LiveSnapshot, LiveTool } from "../../shared/ipc/contract.ts";
import { applyStreamUpdate, streamingCopy, toWireEvent } from "../../shared/streaming-message.ts";

type LiveToolState = Omit<LiveTool, "output">;

export class LiveActivity {
  private streaming: AssistantMessage | null = null;
  private retryNotice: ProviderRetry | null = null;
  private readonly tools = new Map<string, LiveToolState>();

  /** Whether anything is live: a message streaming or a tool call without its result. */
  get idle(): boolean {
    return this.tools.size === 0 && !this.streaming;
  }

  /** The call's live state, while it has no result in the transcript. */
  tool(toolCallId: string): Readonly<LiveToolState> | undefined {
    return this.tools.get(toolCallId);
  }

  /** The live part of a snapshot, each tool with its output so far. */
  snapshot(outputOf: (toolCallId: string) => string): LiveSnapshot {
    return {
      streaming: this.streaming && streamingCopy(this.streaming),
      retry: this.retryNotice,
      tools: [...this.tools.values()].map((t) => ({ ...t, output: outputOf(t.toolCallId) })),
    };
  }

  /** Takes in one session event (every event, in order), seen at `at` (the time the store records too). Must not throw. */
  track(event: SessionEvent, at = Date.now()): void {
    switch (event.type) {
      case "message_start":
        if (event.message.role === "assistant") {
          this.streaming = streamingCopy(event.message);
          this.retryNotice = null;
        }
        break;
      case "message_update": {
        const wire = toWireEvent(event);
        // Out of step (a stream function that broke the start-before-blocks contract): the
        // provider's message is the best there is.
        if (!this.streaming || (wire.type === "message_update" && !applyStreamUpdate(this.streaming, wire))) this.streaming = streamingCopy(event.message);
        this.retryNotice = null;
        break;
      }
      case "message_end":
        if (event.message.role === "assistant") this.streaming = null;
        if (event.message.role === "toolResult") this.tools.delete(event.message.toolCallId);
        break;
      case "provider_retry":
        this.retryNotice = event.retry;
        break;
      case "agent_end":
        this.streaming = null;
        this.retryNotice = null;
        this.tools.clear();
        break;
      case "tool_execution_start":
        this.tools.set(event.toolCallId, {
          toolCallId: event.toolCallId,
          toolName: event.toolName,
          args: event.args,
          status: "running",
          startedAt: at,
          executingAt: null,
          endedAt: null,
          skippedBytes: 0,
          progress: null,
          waitingForInput: false,
          result: null,
        });
        break;
      case "tool_execution_update": {
        const tool = this.tools.get(event.toolCallId);
        if (!tool) break;
        const { chunk: _chunk, ...progress } = (event.partialResult.details ?? {}) as Record<string, unknown>;
        tool.progress = progress;
        if (typeof progress.skippedBytes === "number") tool.skippedBytes += progress.skippedBytes;
        if (typeof progress.waitingForInput === "boolean") tool.waitingForInput = progress.waitingForInput;
        break;
      }
      case "tool_call_phase": {
        const tool = this.tools.get(event.toolCallId);
        if (!tool) break;
        if (event.phase === "executing") tool.executingAt = at;
        else tool.phase = { outcome: event.phase, ...(event.reason !== undefined ? { reason: event.reason } : {}) };
        break;
      }
      case "tool_execution_end": {
        const tool = this.tools.get(event.toolCallId);
        if (!tool) break;
        tool.status = event.isError ? "error" : "done";
        tool.endedAt = at;
        tool.waitingForInput = false;
        tool.result = { content: event.result.content, details: event.result.details, isError: event.isError };
        break;
      }
    }
  }
}
