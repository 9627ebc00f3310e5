// Desktop notifications in the browser host (the Electron shell shows its own from the main
// process): when a run ends or a session asks for approval while this window is not focused, a
// notification says which session and what happened (app/shared/attention.ts); clicking it brings
// the tab forward at that session. Permission is asked politely, once: a small prompt offers it
// (the browser's own question comes only after "Turn on"), and the answer is remembered.
import { useState } from "react";
import { AttentionTracker, attentionText } from "../../../shared/attention";
import type { LatheApi } from "../../../shared/ipc/contract";
import type { ConnectionStatus } from "../api/ws-client";

const ASKED_KEY = "lathe.notificationsAsked";

function supported(): boolean {
  return typeof window !== "undefined" && "Notification" in window;
}

/** Starts watching the sessions' states; returns a stop function. Never throws. */
export function startNotifications(
  api: LatheApi,
  options: {
    titleOf: (sessionId: number) => string | null;
    onOpen: (sessionId: number) => void;
    onConnectionStatus?: (listener: (status: ConnectionStatus) => void) => () => void;
  },
): () => void {
  if (!supported()) return () => undefined;
  const tracker = new AttentionTracker();
  const seed = () =>
    void api.sessions.live({}).then(
      (r) => r.ok && tracker.seed(r.data),
      () => undefined,
    );
  seed();
  const offs = [
    api.events.onSessionState((state) => {
      for (const attention of tracker.update(state)) {
        if (Notification.permission !== "granted" || document.hasFocus()) continue;
        try {
          const { title, body } = attentionText(attention, options.titleOf(attention.sessionId));
          const notification = new Notification(title, { body, tag: `lathe-${attention.sessionId}-${attention.kind}` });
          notification.onclick = () => {
            window.focus();
            options.onOpen(attention.sessionId);
            notification.close();
          };
        } catch {
          // A browser that refuses page notifications (some need a service worker): nothing to show.
        }
      }
    }),
  ];
  if (options.onConnectionStatus) offs.push(options.onConnectionStatus((s) => s === "open" && seed()));
  return () => offs.forEach((off) => off());
}

function alreadyAsked(): boolean {
  try {
    return localStorage.getItem(ASKED_KEY) === "1";
  } catch {
    return false;
  }
}

/** The one-time offer to turn notifications on (shown while the browser has not been asked). */
export function NotificationPrompt() {
  const [show, setShow] = useState(() => supported() && Notification.permission === "default" && !alreadyAsked());
  if (!show) return null;
  const done = () => {
    try {
      localStorage.setItem(ASKED_KEY, "1");
    } catch {
      // Storage off: the prompt comes back next time; nothing else changes.
    }
    setShow(false);
  };
  return (
    <div className="notification-prompt" role="region" aria-label="Desktop notifications">
      <span>Get a desktop notification when a run ends or needs your approval while this tab is in the background?</span>
      <div className="row">
        <button className="small primary" onClick={() => void Notification.requestPermission().finally(done)}>
          Turn on
        </button>
        <button className="small" onClick={done}>
          Not now
        </button>
      </div>
    </div>
  );
}
