// The session view: header, transcript, the pending permission request, composer and status bar
// for one session. Esc stops a running agent from anywhere (the window's keyboard model,
// shell/keyboard.ts); after a permission answer the focus returns to the composer. Compaction entries’
// Edit and Undo, and Retry on a failed last answer, go through here. While an answer streams, the
// seconds since its last data are counted for the status bar ("no data for N s").
import { useCallback, useEffect, useMemo, useRef, useState } from "react";
import type { AssistantMessage } from "../../../shared/agent-types";
import type { Project, Session } from "../../../shared/ipc/contract";
import { getApi } from "../api/client";
import { errorText, unwrap } from "../state/api-hooks";
import { compactionStateOf } from "../state/compaction";
import { describeActivity, streamingUsage } from "../state/activity";
import { useAppData } from "../state/app-data";
import { atEnd, visibleItems } from "../state/session-model";
import { useSession } from "../state/use-session";
import { focusComposer } from "../shell/keyboard";
import { SessionHeader } from "../shell/SessionHeader";
import { textOf } from "../state/format";
import { Composer } from "./Composer";
import { PermissionPanel } from "./PermissionPanel";
import { StatusBar } from "./StatusBar";
import { Transcript, type FilesContext } from "./Transcript";
import { SessionChanges } from "./FilesChanged";
import { RewindDialog, type RewindTarget } from "./RewindDialog";
import { useCheckpoints } from "./use-checkpoints";

export interface SessionViewProps {
  sessionId: number;
  jumpTo: number | null;
  project: Project | null;
  onOpenSession: (session: Pick<Session, "id" | "projectId">, jumpTo?: number | null) => void;
  onOpenProject: (project: Project) => void;
  /** A fork was made here (it is listed, then opened). */
  onForked?: (session: Session) => void;
}

export function SessionView({ sessionId, jumpTo, project, onOpenSession, onOpenProject, onForked }: SessionViewProps) {
  const projectName = project?.name ?? "";
  const view = useSession(sessionId, jumpTo);
  const [error, setError] = useState<string | null>(null);
  const items = useMemo(() => visibleItems(view.model), [view.model]);
  const running = view.state?.running ?? view.model.running;
  const compaction = useMemo(() => compactionStateOf(view.model.compactions), [view.model.compactions]);
  const [rewind, setRewind] = useState<RewindTarget | null>(null);
  const [rewound, setRewound] = useState<string | null>(null);
  const [showChanges, setShowChanges] = useState(false);
  const checkpoints = useCheckpoints(sessionId, running);
  const callNames = useMemo(() => {
    const names = new Map<string, string>();
    for (const m of view.model.messages) if (m.role === "assistant") for (const c of m.content) if (c.type === "toolCall") names.set(c.id, c.name);
    return names;
  }, [view.model.messages]);
  const name = useCallback((id: string) => callNames.get(id), [callNames]);
  const files = useMemo<FilesContext>(
    () => ({ byPosition: checkpoints.byPosition, name, maxFileBytes: checkpoints.list?.maxFileBytes ?? 0 }),
    [checkpoints.byPosition, name, checkpoints.list?.maxFileBytes],
  );
  const model = useRef(view.model);
  useEffect(() => {
    model.current = view.model;
  });
  const actions = useMemo(
    () => ({
      onFork: (position: number) => {
        setError(null);
        // Forking at one of your messages offers to restore the files as they were then.
        if (model.current.messages[position - model.current.first]?.role === "user") return setRewind({ kind: "fork", position });
        unwrap(getApi().sessions.fork({ sessionId, position })).then(
          (fork) => (onForked ?? onOpenSession)(fork),
          (e: unknown) => setError(errorText(e)),
        );
      },
      onRewind: (position: number) => setRewind({ kind: "rewind", position }),
      onUndoRewind: (rewindId: number) => setRewind({ kind: "undo", rewindId }),
      onEditCompaction: async (index: number, summary: string) => {
        await unwrap(getApi().sessions.editCompaction({ sessionId, index, summary }));
      },
      onUndoCompaction: async (index: number) => {
        await unwrap(getApi().sessions.undoCompaction({ sessionId, index }));
      },
      onRetry: () => {
        setError(null);
        unwrap(getApi().sessions.retry({ sessionId })).catch((e: unknown) => setError(errorText(e)));
      },
    }),
    [sessionId, onOpenSession, onForked],
  );

  const { loadOlder, loadNewer, showLatest } = view;
  const paging = useMemo(() => ({ loadOlder, loadNewer, showLatest }), [loadOlder, loadNewer, showLatest]);
  const awaitingApproval = useMemo(() => new Map(view.permissions.map((p) => [p.toolCallId, p.createdAt])), [view.permissions]);
  const last = atEnd(view.model) ? view.model.messages.at(-1) : undefined;
  const retryPosition = !running && last?.role === "assistant" && (last.stopReason === "error" || last.stopReason === "aborted") ? view.model.total - 1 : null;
  const idleSeconds = useIdleSeconds(view.model.streaming);
  const { models } = useAppData();
  const currentModel = view.state?.model ?? view.info?.model ?? "";
  const priced = models.find((m) => `${m.provider}/${m.id}` === currentModel);
  const usage = useMemo(() => {
    const streamed = streamingUsage(view.model.streaming, view.state?.contextTokens ?? 0, priced);
    const { liveUsage } = view.model;
    return { tokens: (view.info?.tokens ?? 0) + liveUsage.tokens + streamed.tokens, cost: (view.info?.cost ?? 0) + liveUsage.cost + streamed.cost, estimated: streamed.estimated };
  }, [view.model, view.info, view.state?.contextTokens, priced]);
  const activity = describeActivity({
    running,
    pendingPermissions: view.permissions.length,
    retrying: view.model.retry !== null,
    tools: view.model.tools,
    streaming: view.model.streaming,
  });
  useFocusReturn(view.permissions.length);
  // The first prompt is in the window only when it starts at the session's first message.
  const firstPrompt = view.model.first === 0 ? view.model.messages.find((m) => m.role === "user") : undefined;
  const fallbackTitle = firstPrompt && firstPrompt.role === "user" ? titleFromText(textOf(firstPrompt.content)) : null;

  if (view.loading) return <div className="page muted">Opening the session…</div>;
  if (view.error)
    return (
      <div className="page error-text" role="alert">
        Could not open the session: {view.error}
      </div>
    );

  return (
    <div className="session" data-session-id={sessionId} data-running={running}>
      <SessionHeader
        sessionId={sessionId}
        info={view.info}
        state={view.state}
        fallbackTitle={fallbackTitle}
        project={project}
        onOpenProject={onOpenProject}
        onOpenSession={onOpenSession}
      />
      <div className="session-body">
        {view.model.total === 0 && !running && <EmptySession projectName={projectName} />}
        <Transcript
          sessionId={sessionId}
          model={view.model}
          items={items}
          jumpTo={jumpTo}
          actions={actions}
          compaction={compaction}
          running={running}
          awaitingApproval={awaitingApproval}
          retryPosition={retryPosition}
          paging={paging}
          files={files}
        />
      </div>
      <div className="session-extras">
        {error && (
          <div className="notice error" role="alert">
            {error}
          </div>
        )}
        {checkpoints.list && checkpoints.list.turns.some((t) => t.files.length > 0) && (
          <div className="changes-bar">
            <button className="link" onClick={() => setShowChanges(!showChanges)} aria-expanded={showChanges}>
              {showChanges ? "Hide the changes of this session" : "Review the changes of this session"}
            </button>
          </div>
        )}
        {showChanges && checkpoints.list && (
          <SessionChanges
            sessionId={sessionId}
            list={checkpoints.list}
            name={name}
            onUndo={(r) => setRewind({ kind: "undo", rewindId: r.id })}
            onClose={() => setShowChanges(false)}
          />
        )}
        {checkpoints.error && <div className="notice">Files changed: {checkpoints.error}</div>}
        {rewound && (
          <div className="notice" role="status">
            {rewound}{" "}
            <button className="link" onClick={() => setRewound(null)}>
              Dismiss
            </button>
          </div>
        )}
        {rewind && (
          <RewindDialog key={JSON.stringify(rewind)} sessionId={sessionId} target={rewind} onClose={() => setRewind(null)} onOpenSession={onOpenSession} onDone={setRewound} />
        )}
      </div>
      {view.permissions.length > 0 ? <PermissionPanel requests={view.permissions} projectName={projectName} /> : <div />}
      <div>
        <Composer sessionId={sessionId} running={running} queued={view.state?.queued} disabled={false} />
        <StatusBar
          state={view.state}
          info={view.info}
          retry={view.model.retry}
          retryAt={view.model.retryAt}
          idleSeconds={view.model.retry ? null : idleSeconds}
          activity={activity}
          usage={usage}
          onState={view.applyState}
        />
      </div>
    </div>
  );
}

/** Whole seconds since the streaming answer last changed (null when nothing streams); ticks each second. */
function useIdleSeconds(streaming: AssistantMessage | null): number | null {
  const [idle, setIdle] = useState<{ of: AssistantMessage | null; seconds: number }>({ of: null, seconds: 0 });
  useEffect(() => {
    if (!streaming) return;
    const since = Date.now();
    const timer = setInterval(() => setIdle({ of: streaming, seconds: Math.floor((Date.now() - since) / 1000) }), 1000);
    return () => clearInterval(timer);
  }, [streaming]);
  if (!streaming) return null;
  return idle.of === streaming ? idle.seconds : 0;
}

/**
 * After a permission answer the dialog goes away and the focus with it: give it to the composer,
 * unless something else took it (the next request's dialog takes it itself).
 */
function useFocusReturn(pending: number): void {
  const before = useRef(pending);
  useEffect(() => {
    const answered = pending < before.current;
    before.current = pending;
    if (!answered) return;
    const frame = requestAnimationFrame(() => {
      const active = document.activeElement;
      if (!active || active === document.body || !active.isConnected) focusComposer();
    });
    return () => cancelAnimationFrame(frame);
  }, [pending]);
}

/** The title the store gives a session from its first prompt (first non-empty line, 80 characters). */
function titleFromText(text: string): string | null {
  const line = text
    .split("\n")
    .map((l) => l.trim())
    .find((l) => l !== "");
  if (!line) return null;
  return line.length <= 80 ? line : `${line.slice(0, 79).trimEnd()}…`;
}

/** What a new session shows before its first message. */
function EmptySession({ projectName }: { projectName: string }) {
  return (
    <div className="session-empty">
      <h2>What should Lathe do{projectName ? ` in ${projectName}` : ""}?</h2>
      <p className="muted">
        Describe a task below: “Fix the failing test”, “Explain how the build works”, “Add a --verbose flag”. Lathe reads, runs and edits in the project folder, asking before
        anything the sandbox or your rules do not cover.
      </p>
      <p className="muted text-sm">
        Press <kbd>?</kbd> for keyboard shortcuts.
      </p>
    </div>
  );
}
