// What the sessions service asks of whoever carries its events to the renderers (a port: the IPC
// event hub satisfies it, and app-services.ts passes the hub in). Services know nothing of IPC.
import type { SessionEvent } from "../../shared/agent-types.ts";
import type { EventName, EventPayload } from "../../shared/ipc/contract.ts";

export interface SessionEventPort {
  emit<E extends EventName>(event: E, payload: EventPayload<E>): void;
  /** Numbers the event in its session's sequence and delivers it. */
  sessionEvent(sessionId: number, event: SessionEvent): void;
  /** The number of the session's last event (0 before its first). */
  seqOf(sessionId: number): number;
  /** Delivers whatever is held back now, so a snapshot numbered seqOf() is not overtaken. */
  flush(): void;
}
