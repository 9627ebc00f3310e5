// SessionDirectory: what the sidebar, the tab title and the notifications know about every
// session: projects (most recently opened first), each project's newest sessions, and the live
// state of every session this host ran since it started (running, waiting for an answer, how its
// last run ended), kept current from `session.state` and `session.updated` events. Plain
// TypeScript over any LatheApi; React reads it through useSyncExternalStore. A reconnect (the host
// restarted) loads everything again. Never throws; a failed load is kept as `error`, except a
// refusal of this page (the connection banner says it once; the sidebar does not repeat it).
import type { LatheApi, Project, Session, SessionState } from "../../../shared/ipc/contract";
import type { ConnectionStatus } from "../api/ws-client";
import { isRefusal } from "../state/api-hooks";

/** Sessions listed under each project in the sidebar. */
export const SIDEBAR_SESSIONS = 12;

export interface DirectorySnapshot {
  projects: readonly Project[];
  /** Each project's newest sessions, newest first. */
  sessions: ReadonlyMap<number, readonly Session[]>;
  /** Projects with more sessions than listed. */
  more: ReadonlySet<number>;
  states: ReadonlyMap<number, SessionState>;
  loaded: boolean;
  error: string | null;
}

export type Badge = "approval" | "running" | "failed";

/** The badge a session's state earns: a question beats running, running beats a failed last run. */
export function badgeOf(state: SessionState | undefined): Badge | null {
  if (!state) return null;
  if (state.pendingPermissions.length > 0) return "approval";
  if (state.running) return "running";
  if (state.lastRun?.outcome === "failed") return "failed";
  return null;
}

export const BADGE_TEXT: Record<Badge, string> = { approval: "needs approval", running: "running", failed: "failed" };

const newestFirst = (a: Session, b: Session) => b.updatedAt - a.updatedAt || b.id - a.id;

export class SessionDirectory {
  private snapshot: DirectorySnapshot = { projects: [], sessions: new Map(), more: new Set(), states: new Map(), loaded: false, error: null };
  private readonly listeners = new Set<() => void>();
  private readonly offs: (() => void)[] = [];
  private reloadTimer: ReturnType<typeof setTimeout> | null = null;
  private generation = 0;
  private disconnected = false;

  private readonly api: LatheApi;
  private readonly onConnectionStatus: ((listener: (status: ConnectionStatus) => void) => () => void) | undefined;

  constructor(api: LatheApi, onConnectionStatus?: (listener: (status: ConnectionStatus) => void) => () => void) {
    this.api = api;
    this.onConnectionStatus = onConnectionStatus;
  }

  start(): void {
    const api = this.api;
    this.offs.push(
      api.events.onSessionState((state) => {
        const states = new Map(this.snapshot.states);
        states.set(state.sessionId, state);
        this.set({ states });
        // A session not listed yet, or still untitled (its title comes from its first prompt).
        const info = this.sessionInfo(state.sessionId);
        if (!info || info.title === null) this.reloadSoon();
      }),
      api.events.onSessionUpdated((session) => this.noteSession(session)),
    );
    if (this.onConnectionStatus) {
      this.offs.push(
        this.onConnectionStatus((status) => {
          if (status === "closed" || status === "refused") this.disconnected = true;
          if (status === "open" && this.disconnected) {
            this.disconnected = false;
            this.reload();
          }
        }),
      );
    }
    this.reload();
  }

  dispose(): void {
    this.offs.splice(0).forEach((off) => off());
    if (this.reloadTimer) clearTimeout(this.reloadTimer);
    this.reloadTimer = null;
  }

  subscribe = (listener: () => void): (() => void) => {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  };

  getSnapshot = (): DirectorySnapshot => this.snapshot;

  sessionInfo(sessionId: number): Session | undefined {
    for (const list of this.snapshot.sessions.values()) {
      const found = list.find((s) => s.id === sessionId);
      if (found) return found;
    }
    return undefined;
  }

  /** A session created, opened, renamed or forked: listed (or updated) at once. */
  noteSession(session: Session): void {
    if (!this.snapshot.projects.some((p) => p.id === session.projectId)) {
      this.reloadSoon();
      return;
    }
    const sessions = new Map(this.snapshot.sessions);
    const list = (sessions.get(session.projectId) ?? []).filter((s) => s.id !== session.id);
    if (session.archivedAt === null) list.push(session);
    list.sort(newestFirst);
    sessions.set(session.projectId, list.slice(0, SIDEBAR_SESSIONS));
    this.set({ sessions });
  }

  /** A session deleted in this window: unlisted at once (Undo lists it again through noteSession). */
  forgetSession(sessionId: number): void {
    const sessions = new Map([...this.snapshot.sessions].map(([p, list]) => [p, list.filter((s) => s.id !== sessionId)]));
    this.set({ sessions });
  }

  /** A project opened in this window: first in the list. */
  noteProject(project: Project): void {
    const projects = [project, ...this.snapshot.projects.filter((p) => p.id !== project.id)];
    this.set({ projects });
    if (!this.snapshot.sessions.has(project.id)) this.reloadSoon();
  }

  /** Loads everything again shortly (several changes at once load once). */
  reloadSoon(delayMs = 250): void {
    if (this.reloadTimer) return;
    this.reloadTimer = setTimeout(() => {
      this.reloadTimer = null;
      this.reload();
    }, delayMs);
  }

  reload(): void {
    const generation = ++this.generation;
    const api = this.api;
    const load = async (): Promise<Partial<DirectorySnapshot>> => {
      const [projectsResult, liveResult] = await Promise.all([api.projects.list({}), api.sessions.live({})]);
      if (!projectsResult.ok) throw new Error(projectsResult.error.message);
      const projects = projectsResult.data.slice().sort((a, b) => b.lastOpenedAt - a.lastOpenedAt);
      const pages = await Promise.all(projects.map((p) => api.sessions.list({ projectId: p.id, limit: SIDEBAR_SESSIONS })));
      const sessions = new Map<number, Session[]>();
      const more = new Set<number>();
      pages.forEach((page, i) => {
        const project = projects[i]!;
        sessions.set(project.id, page.ok ? page.data.sessions.slice().sort(newestFirst) : []);
        if (page.ok && page.data.nextCursor) more.add(project.id);
      });
      // The host's word replaces what was known: after a restart nothing runs any more.
      const states = liveResult.ok ? new Map(liveResult.data.map((s) => [s.sessionId, s])) : this.snapshot.states;
      return { projects, sessions, more, states, loaded: true, error: null };
    };
    load().then(
      (changes) => generation === this.generation && this.set(changes),
      (error: unknown) => {
        if (generation !== this.generation) return;
        if (isRefusal(error)) this.set({ error: null });
        else this.set({ loaded: true, error: error instanceof Error ? error.message : String(error) });
      },
    );
  }

  private set(changes: Partial<DirectorySnapshot>): void {
    this.snapshot = { ...this.snapshot, ...changes };
    for (const listener of this.listeners) listener();
  }
}
