// useSession: one open session as the session view needs it: the view model (folded from the
// stored transcript, then from live event batches), the loop's state (running, queues, pending
// permissions, context), and the session's info (title, tokens, cost). Events of other sessions
// are ignored. Events that arrive while the session is being opened are dropped: the snapshot
// already contains what they described, and the next live batch brings the streaming message.
import { useCallback, useEffect, useState } from "react";
import type { PermissionRequest, Session, SessionState } from "../../../shared/ipc/contract";
import { getApi } from "../api/client";
import { applyEvents, emptyModel, modelFromStored, type SessionModel } from "./session-model";
import { errorText, unwrap } from "./api-hooks";

export interface OpenSession {
  model: SessionModel;
  state: SessionState | null;
  info: Session | null;
  /** Pending permission requests of this session, oldest first. */
  permissions: PermissionRequest[];
  error: string | null;
  loading: boolean;
  /** Applies a state returned by a request (e.g. setModel) without waiting for its event. */
  applyState: (state: SessionState) => void;
}

type View = Omit<OpenSession, "applyState">;

export function useSession(sessionId: number): OpenSession {
  const [view, setView] = useState<View>({ model: emptyModel(), state: null, info: null, permissions: [], error: null, loading: true });

  useEffect(() => {
    const api = getApi();
    let loaded = false;
    let cancelled = false;
    const offs = [
      api.events.onSessionEvents((batch) => {
        if (batch.sessionId !== sessionId || !loaded) return;
        const now = Date.now();
        setView((v) => ({ ...v, model: applyEvents(v.model, batch.events, now) }));
      }),
      api.events.onSessionState((state) => {
        if (state.sessionId !== sessionId || !loaded) return;
        setView((v) => ({ ...v, state, permissions: sortRequests(state.pendingPermissions), model: v.model.running === state.running ? v.model : { ...v.model, running: state.running } }));
      }),
      api.events.onSessionUpdated((info) => {
        if (info.id === sessionId) setView((v) => ({ ...v, info }));
      }),
      api.events.onPermissionRequest((request) => {
        if (request.sessionId !== sessionId) return;
        setView((v) => (v.permissions.some((p) => p.id === request.id) ? v : { ...v, permissions: sortRequests([...v.permissions, request]) }));
      }),
      api.events.onPermissionResolved((resolved) => {
        if (resolved.sessionId !== sessionId) return;
        setView((v) => ({ ...v, permissions: v.permissions.filter((p) => p.id !== resolved.requestId) }));
      }),
    ];
    unwrap(api.sessions.open({ sessionId })).then(
      ({ opened, state }) => {
        if (cancelled) return;
        loaded = true;
        setView({
          model: modelFromStored(opened.messages, opened.events, state.running),
          state,
          info: opened.session,
          permissions: sortRequests(state.pendingPermissions),
          error: null,
          loading: false,
        });
      },
      (error: unknown) => !cancelled && setView((v) => ({ ...v, error: errorText(error), loading: false })),
    );
    return () => {
      cancelled = true;
      offs.forEach((off) => off());
    };
  }, [sessionId]);

  const applyState = useCallback((state: SessionState) => {
    if (state.sessionId === sessionId) setView((v) => ({ ...v, state, permissions: sortRequests(state.pendingPermissions) }));
  }, [sessionId]);
  return { ...view, applyState };
}

function sortRequests(requests: readonly PermissionRequest[]): PermissionRequest[] {
  return requests.slice().sort((a, b) => a.createdAt - b.createdAt);
}
