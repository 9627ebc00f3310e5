// useSession: one open session as the session view needs it: the view model (a snapshot, then
// live event batches applied in sequence), the loop's state (running, queues, pending
// permissions, context), and the session's info (title, tokens, cost). The protocol (numbered
// events, resync on a gap or a reconnect) lives in SessionSync.
import { useCallback, useEffect, useRef, useState } from "react";
import type { SessionState } from "../../../shared/ipc/contract";
import { getApi, onConnectionStatus } from "../api/client";
import { loadingView, SessionSync, type SessionViewState } from "./session-sync";

export interface OpenSession extends SessionViewState {
  /** Applies a state returned by a request (e.g. setModel) without waiting for its event. */
  applyState: (state: SessionState) => void;
}

export function useSession(sessionId: number): OpenSession {
  const sync = useRef<SessionSync | null>(null);
  const [view, setView] = useState<SessionViewState>(loadingView);

  useEffect(() => {
    const current = new SessionSync(getApi(), sessionId, setView, { onConnectionStatus });
    sync.current = current;
    current.start();
    return () => {
      current.dispose();
      if (sync.current === current) sync.current = null;
    };
  }, [sessionId]);

  const applyState = useCallback((state: SessionState) => sync.current?.applyState(state), []);
  return { ...view, applyState };
}
