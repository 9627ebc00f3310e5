// A push-based async iterable of assistant-message events with a final result. Producers call
// `push` for every event and the stream ends itself on `done` or `error`; consumers iterate and
// then await `result()`. Never throws: pushing after the end is ignored.
import type { AssistantMessage, AssistantMessageEvent } from "../../shared/agent-types.ts";
import type { AssistantMessageEventStream } from "./types.ts";

export class AssistantEventStream implements AssistantMessageEventStream {
  private readonly queue: AssistantMessageEvent[] = [];
  private waiting: ((r: IteratorResult<AssistantMessageEvent>) => void) | undefined;
  private ended = false;
  private resolveResult!: (m: AssistantMessage) => void;
  private readonly final: Promise<AssistantMessage>;

  constructor() {
    this.final = new Promise((resolve) => (this.resolveResult = resolve));
  }

  push(event: AssistantMessageEvent): void {
    if (this.ended) return;
    if (event.type === "done" || event.type === "error") {
      this.ended = true;
      this.resolveResult(event.type === "done" ? event.message : event.error);
    }
    const waiter = this.waiting;
    if (waiter) {
      this.waiting = undefined;
      waiter({ value: event, done: false });
    } else {
      this.queue.push(event);
    }
  }

  result(): Promise<AssistantMessage> {
    return this.final;
  }

  [Symbol.asyncIterator](): AsyncIterator<AssistantMessageEvent> {
    return {
      next: () => {
        const event = this.queue.shift();
        if (event) return Promise.resolve({ value: event, done: false });
        if (this.ended) return Promise.resolve({ value: undefined, done: true });
        return new Promise((resolve) => (this.waiting = resolve));
      },
    };
  }
}
