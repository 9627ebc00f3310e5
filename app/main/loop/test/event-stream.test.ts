// AssistantEventStream read directly (the loop stops at done, so it never asks past the end): the
// events as pushed, a consumer that waits, the end after done or error, pushes after the end.
import { describe, expect, it } from "vitest";
import type { AssistantMessage, AssistantMessageEvent } from "../../../shared/agent-types.ts";
import { AssistantEventStream } from "../index.ts";
import { emptyAssistantMessage } from "../messages.ts";
import { scriptedModelInfo } from "./scripted-model.ts";

const message = (text: string): AssistantMessage => ({ ...emptyAssistantMessage(scriptedModelInfo), content: [{ type: "text", text }] });

/** What `promise` settled to, or "pending" when it has not once the tasks queued before now have run. */
function settledOrPending<T>(promise: Promise<T>): Promise<T | "pending"> {
  return Promise.race([promise, new Promise<"pending">((resolve) => setTimeout(() => resolve("pending"), 0))]);
}
const nextOrPending = (iterator: AsyncIterator<AssistantMessageEvent>) => settledOrPending(iterator.next());

describe("AssistantEventStream", () => {
  it("hands out exactly the events pushed, in order, then ends after done; pushes after the end are ignored", async () => {
    const stream = new AssistantEventStream();
    const done = message("whole");
    const events: AssistantMessageEvent[] = [
      { type: "start", partial: message("") },
      { type: "text_delta", contentIndex: 0, delta: "w", partial: message("w") },
      { type: "done", reason: "stop", message: done },
    ];
    for (const e of events) stream.push(e);
    stream.push({ type: "text_delta", contentIndex: 0, delta: "late", partial: message("late") });
    stream.push({ type: "done", reason: "stop", message: message("second") });
    const iterator = stream[Symbol.asyncIterator]();
    for (const e of events) expect(await nextOrPending(iterator)).toEqual({ value: e, done: false });
    expect(await nextOrPending(iterator)).toEqual({ value: undefined, done: true });
    expect(await nextOrPending(iterator)).toEqual({ value: undefined, done: true });
    expect(await stream.result()).toBe(done);
  });

  it("a waiting consumer gets the next event when it is pushed; an error ends the stream with its message", async () => {
    const stream = new AssistantEventStream();
    const iterator = stream[Symbol.asyncIterator]();
    const waiting = iterator.next();
    expect(await settledOrPending(waiting)).toBe("pending");
    const start: AssistantMessageEvent = { type: "start", partial: message("") };
    stream.push(start);
    expect(await waiting).toEqual({ value: start, done: false });
    const failed = { ...message("part"), stopReason: "error" as const, errorMessage: "reset" };
    const error: AssistantMessageEvent = { type: "error", reason: "error", error: failed };
    stream.push(error);
    stream.push({ type: "done", reason: "stop", message: message("after") });
    expect(await stream.result()).toBe(failed);
    expect(await nextOrPending(iterator)).toEqual({ value: error, done: false });
    expect(await nextOrPending(iterator)).toEqual({ value: undefined, done: true });
  });
});
