// SessionSync: keeps one open session's view in step with the main process, over any LatheApi (the
// preload's or the WebSocket client's). Plain TypeScript, no React: useSession wraps it, and tests
// drive it against the real host the same way.
//
// Protocol: `sessions.open` returns a snapshot and `seq`, the number of the last session event it
// reflects. Event batches arriving before the snapshot are held; then every batch is applied from
// the first event numbered above the view's last: events at or below it are dropped (they are in
// the snapshot), and a batch that starts beyond the next number (a gap: events were lost) asks for
// a fresh snapshot, as does a streaming update that does not fit the view's message (the model's
// `outOfStep`: updates carry only what changed, app/shared/streaming-message.ts) or that joins
// deltas from both sides of the snapshot. A reconnect of the transport (the host restarted, the network dropped) also
// asks for one, so the open session and its pending permission requests come back without a reload.
//
// Pages: a snapshot holds one page of a long session (the newest, or the one around a search hit);
// loadOlder() and loadNewer() add stored pages to the window (session-pages.ts). Stored messages
// never change, so a page needs no sequence number; a page that arrives after a resync moved the
// window is dropped. A resync opens the newest page again (or, for a window not at the end, the
// page around its middle).
import type { EventPayload, LatheApi, PermissionRequest, Session, SessionState } from "../../../shared/ipc/contract";
import type { ConnectionStatus } from "../api/ws-client";
import { applyEvents, atEnd, emptyModel, type SessionModel } from "./session-model";
import { modelFromSnapshot } from "./stored-model";
import { appendPage, prependPage } from "./session-pages";

export interface SessionViewState {
  model: SessionModel;
  state: SessionState | null;
  info: Session | null;
  /** Pending permission requests of this session, oldest first. */
  permissions: PermissionRequest[];
  error: string | null;
  loading: boolean;
}

export type { ConnectionStatus };

export interface SessionSyncOptions {
  /** Subscribes to the transport's connection status (the browser host); returns an unsubscribe. */
  onConnectionStatus?: (listener: (status: ConnectionStatus) => void) => () => void;
  now?: () => number;
  /** Messages per page (default 200). */
  pageSize?: number;
  /** Open at the page around this message position (a search hit) instead of the newest. */
  around?: number;
}

type Batch = EventPayload<"session.events">;

/** The view before the first snapshot arrives. */
export function loadingView(): SessionViewState {
  return { model: emptyModel(), state: null, info: null, permissions: [], error: null, loading: true };
}

export class SessionSync {
  readonly sessionId: number;
  view: SessionViewState = loadingView();
  /** How many snapshots were taken (the first open plus every resync). */
  snapshots = 0;
  private readonly api: LatheApi;
  private readonly onChange: (view: SessionViewState) => void;
  private readonly options: SessionSyncOptions;
  private lastSeq = 0;
  private loaded = false;
  private held: Batch[] = [];
  private generation = 0;
  private disposed = false;
  private disconnected = false;
  private around: number | undefined;
  private paging: Promise<boolean> | null = null;
  private readonly offs: (() => void)[] = [];

  constructor(api: LatheApi, sessionId: number, onChange: (view: SessionViewState) => void, options: SessionSyncOptions = {}) {
    this.api = api;
    this.sessionId = sessionId;
    this.onChange = onChange;
    this.options = options;
    this.around = options.around;
  }

  /** The number of the last event the view reflects. */
  get seq(): number {
    return this.lastSeq;
  }

  start(): void {
    const api = this.api;
    const id = this.sessionId;
    this.offs.push(
      api.events.onSessionEvents((batch) => {
        if (batch.sessionId !== id) return;
        if (!this.loaded) this.held.push(batch);
        else this.apply(batch);
      }),
      api.events.onSessionState((state) => {
        if (state.sessionId !== id || !this.loaded) return;
        const model = this.view.model.running === state.running ? this.view.model : { ...this.view.model, running: state.running };
        this.set({ state, permissions: sortRequests(state.pendingPermissions), model });
      }),
      api.events.onSessionUpdated((info) => {
        // The info counts every answer stored so far: the live count starts again from it.
        if (info.id === id) this.set({ info, model: { ...this.view.model, liveUsage: { tokens: 0, cost: 0 } } });
      }),
      api.events.onPermissionRequest((request) => {
        if (request.sessionId !== id || !this.loaded || this.view.permissions.some((p) => p.id === request.id)) return;
        this.set({ permissions: sortRequests([...this.view.permissions, request]) });
      }),
      api.events.onPermissionResolved((resolved) => {
        if (resolved.sessionId !== id || !this.loaded) return;
        this.set({ permissions: this.view.permissions.filter((p) => p.id !== resolved.requestId) });
      }),
    );
    if (this.options.onConnectionStatus) {
      this.offs.push(
        this.options.onConnectionStatus((status) => {
          if (status === "closed") this.disconnected = true;
          if (status === "open" && this.disconnected) {
            this.disconnected = false;
            this.resync();
          }
        }),
      );
    }
    this.open();
  }

  /** Takes a fresh snapshot; the view stays as it is until it arrives. */
  resync(): void {
    if (this.disposed) return;
    const model = this.view.model;
    this.around = this.loaded && !atEnd(model) ? model.first + Math.floor(model.messages.length / 2) : this.around;
    this.open();
  }

  /** Opens the newest page again (leaving a window opened around an older message). */
  showLatest(): void {
    if (this.disposed) return;
    this.around = undefined;
    this.open();
  }

  /** Adds the page before the window; resolves false when there is nothing before it (or it could not be read). */
  loadOlder(): Promise<boolean> {
    return this.page("older");
  }

  /** Adds the page after a window that does not reach the end; false when it does. */
  loadNewer(): Promise<boolean> {
    return this.page("newer");
  }

  private page(direction: "older" | "newer"): Promise<boolean> {
    if (this.paging) return this.paging;
    const model = this.view.model;
    if (!this.loaded || (direction === "older" ? model.first === 0 : atEnd(model))) return Promise.resolve(false);
    const generation = this.generation;
    const limit = this.options.pageSize;
    const params =
      direction === "older"
        ? { sessionId: this.sessionId, before: model.first, ...(limit ? { limit } : {}) }
        : { sessionId: this.sessionId, from: model.first + model.messages.length, ...(limit ? { limit } : {}) };
    const done = this.api.sessions.page(params).then(
      (result) => {
        this.paging = null;
        if (this.disposed || generation !== this.generation || !result.ok) return false;
        const next = direction === "older" ? prependPage(this.view.model, result.data) : appendPage(this.view.model, result.data);
        if (next === this.view.model) return false;
        this.set({ model: next });
        return true;
      },
      () => {
        this.paging = null;
        return false;
      },
    );
    this.paging = done;
    return done;
  }

  /** Applies a state returned by a request (e.g. setModel) without waiting for its event. */
  applyState(state: SessionState): void {
    if (state.sessionId === this.sessionId) this.set({ state, permissions: sortRequests(state.pendingPermissions) });
  }

  dispose(): void {
    this.disposed = true;
    this.offs.splice(0).forEach((off) => off());
  }

  private open(): void {
    const generation = ++this.generation;
    this.loaded = false;
    this.held = [];
    const limit = this.options.pageSize;
    const params = { sessionId: this.sessionId, ...(this.around !== undefined ? { around: this.around } : {}), ...(limit ? { limit } : {}) };
    void this.api.sessions.open(params).then(
      (result) => {
        if (this.disposed || generation !== this.generation) return;
        if (!result.ok) {
          this.set({ error: result.error.message, loading: false });
          return;
        }
        const { opened, state, seq, live } = result.data;
        this.snapshots++;
        this.lastSeq = seq;
        this.loaded = true;
        this.view = {
          model: modelFromSnapshot(opened, live, state.running),
          state,
          info: opened.session,
          permissions: sortRequests(state.pendingPermissions),
          error: null,
          loading: false,
        };
        const held = this.held.splice(0);
        for (const batch of held) if (!this.apply(batch, false)) return;
        this.onChange(this.view);
      },
      (error: unknown) => {
        if (!this.disposed && generation === this.generation) this.set({ error: String(error), loading: false });
      },
    );
  }

  /** Applies a batch in sequence; false when it revealed a gap (a resync was started). */
  private apply(batch: Batch, notify = true): boolean {
    if (batch.toSeq <= this.lastSeq) return true;
    if (batch.fromSeq > this.lastSeq + 1) {
      this.resync();
      return false;
    }
    // events[i] stands for the events numbered after seqs[i - 1] up to seqs[i] (joined deltas). One
    // that reaches both sides of the view's last number would repeat text the view has: never
    // expected (a snapshot flushes the batches first), so a fresh snapshot rather than a guess.
    const firstNew = batch.seqs.findIndex((s) => s > this.lastSeq);
    const firstCovered = firstNew === 0 ? batch.fromSeq : batch.seqs[firstNew - 1]! + 1;
    if (firstCovered <= this.lastSeq && batch.events[firstNew]!.type === "message_update") {
      this.resync();
      return false;
    }
    const events = batch.events.slice(firstNew);
    this.lastSeq = batch.toSeq;
    const model = applyEvents(this.view.model, events, this.options.now?.() ?? Date.now());
    if (model.outOfStep) {
      this.resync();
      return false;
    }
    if (notify) this.set({ model });
    else this.view = { ...this.view, model };
    return true;
  }

  private set(changes: Partial<SessionViewState>): void {
    if (this.disposed) return;
    this.view = { ...this.view, ...changes };
    this.onChange(this.view);
  }
}

function sortRequests(requests: readonly PermissionRequest[]): PermissionRequest[] {
  return requests.slice().sort((a, b) => a.createdAt - b.createdAt);
}
