// Desktop notifications from the main process (the Electron shell): when a run ends or a session
// asks for approval while the window is not in front, one notification says which session and what
// happened; a click brings the app forward at that session. Which moments count and the words are
// app/shared/attention.ts, the same as the browser host's notifications (renderer shell/
// notifications.tsx). Plain Node: the platform's notifications come in as a NotificationPort (the
// Electron shell's adapter is app/main/electron/notification-port.ts), so all of this is tested
// without Electron. Never throws: a port that fails is reported once per failure and skipped.
import { AttentionTracker, attentionText } from "../../shared/attention.ts";
import type { SessionState } from "../../shared/ipc/contract.ts";

export interface DesktopNotification {
  title: string;
  body: string;
}

/** The platform's notifications. */
export interface NotificationPort {
  isSupported(): boolean;
  /** Shows it; `onClick` runs when the person clicks it. */
  show(notification: DesktopNotification, onClick: () => void): void;
}

export interface AttentionNotifierOptions {
  /** Subscribes to every session.state event; returns the unsubscribe. */
  onSessionState: (listener: (state: SessionState) => void) => () => void;
  /** The states known at start (nothing in them is new). */
  liveStates: () => readonly SessionState[];
  titleOf: (sessionId: number) => string | null;
  /** Whether the person is looking at the app (then nothing is shown). */
  inFront: () => boolean;
  /** A notification was clicked: bring the app forward at that session. */
  onOpen: (sessionId: number) => void;
  port: NotificationPort;
  onError?: (error: unknown) => void;
}

/** Starts watching; returns the stop function. */
export function startAttentionNotifier(options: AttentionNotifierOptions): () => void {
  const tracker = new AttentionTracker();
  const report = options.onError ?? ((error: unknown) => console.error("[notifications]", error));
  try {
    tracker.seed(options.liveStates());
  } catch (error) {
    report(error);
  }
  return options.onSessionState((state) => {
    try {
      const attentions = tracker.update(state);
      if (attentions.length === 0 || options.inFront() || !options.port.isSupported()) return;
      for (const attention of attentions) {
        options.port.show(attentionText(attention, options.titleOf(attention.sessionId)), () => options.onOpen(attention.sessionId));
      }
    } catch (error) {
      report(error);
    }
  });
}
