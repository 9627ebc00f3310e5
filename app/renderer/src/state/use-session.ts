// useSession: one open session as the session view needs it: the view model (a snapshot, then
// live event batches applied in sequence), the loop's state (running, queues, pending
// permissions, context), and the session's info (title, tokens, cost). The protocol (numbered
// events, resync on a gap or a reconnect) lives in SessionSync. The view renders at most once per
// animation frame, with everything that arrived since the last one (frame-coalescer.ts), and
// commits in that frame.
import { useCallback, useEffect, useRef, useState } from "react";
import { flushSync } from "react-dom";
import type { SessionState } from "../../../shared/ipc/contract";
import { getApi, onConnectionStatus } from "../api/client";
import { coalescePerFrame } from "./frame-coalescer";
import { loadingView, SessionSync, type SessionViewState } from "./session-sync";

export interface OpenSession extends SessionViewState {
  /** Applies a state returned by a request (e.g. setModel) without waiting for its event. */
  applyState: (state: SessionState) => void;
  /** Adds the page before the loaded messages (scrolling up). */
  loadOlder: () => Promise<boolean>;
  /** Adds the page after them, when the view was opened around an older message. */
  loadNewer: () => Promise<boolean>;
  /** Opens the newest page again. */
  showLatest: () => void;
}

/** The session, opened at its newest page, or around message `around` (a search hit). */
export function useSession(sessionId: number, around: number | null = null): OpenSession {
  const sync = useRef<SessionSync | null>(null);
  const [view, setView] = useState<SessionViewState>(loadingView);

  useEffect(() => {
    // One render per animation frame, of the newest view, however many updates arrived since;
    // committed inside the frame's callback (flushSync), so that the frame lays the page out once,
    // after every change of the frame (a render left to React's scheduler would run as a task
    // after the frame, and its DOM changes would force a layout in the next frame's scroll and
    // animation-frame handlers before that frame's own).
    const frames = coalescePerFrame((next: SessionViewState) => flushSync(() => setView(next)));
    const current = new SessionSync(getApi(), sessionId, frames.push, { onConnectionStatus, ...(around !== null ? { around } : {}) });
    sync.current = current;
    current.start();
    return () => {
      current.dispose();
      frames.cancel();
      if (sync.current === current) sync.current = null;
    };
  }, [sessionId, around]);

  const applyState = useCallback((state: SessionState) => sync.current?.applyState(state), []);
  const loadOlder = useCallback(() => sync.current?.loadOlder() ?? Promise.resolve(false), []);
  const loadNewer = useCallback(() => sync.current?.loadNewer() ?? Promise.resolve(false), []);
  const showLatest = useCallback(() => sync.current?.showLatest(), []);
  return { ...view, applyState, loadOlder, loadNewer, showLatest };
}
