// Small React helpers over the LatheApi: unwrap IpcResults (an error becomes a thrown Error with
// the host's message, for callers that show it) and subscribe to events for a component's life.
import { useEffect, useRef } from "react";
import type { IpcResult } from "../../../shared/ipc/contract";
import { REFUSED_MESSAGE } from "../api/ws-client";

export class ApiError extends Error {
  readonly code: string;
  constructor(code: string, message: string) {
    super(message);
    this.code = code;
  }
}

/** The data of an IpcResult, or throws ApiError with the host's message. */
export async function unwrap<T>(result: Promise<IpcResult<T>>): Promise<T> {
  const r = await result;
  if (!r.ok) throw new ApiError(r.error.code, r.error.message);
  return r.data;
}

export function errorText(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/** The host refused this page: the connection banner says so and what to do; a view shows nothing more. */
export function isRefusal(error: unknown): boolean {
  return errorText(error) === REFUSED_MESSAGE;
}

/** Subscribes with `subscribe` (which returns an unsubscribe) while mounted; the listener may change freely. */
export function useSubscription<T>(subscribe: (listener: (payload: T) => void) => () => void, listener: (payload: T) => void): void {
  const latest = useRef(listener);
  useEffect(() => {
    latest.current = listener;
  });
  useEffect(() => subscribe((payload) => latest.current(payload)), [subscribe]);
}
