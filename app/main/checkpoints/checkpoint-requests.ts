// The checkpoint requests of the IPC contract (checkpoints.list, .diff, .preview, .rewind), over
// the checkpoint service, the rewinder and the sessions (through a port, RewindSessions: the
// sessions service satisfies it, and app-services.ts passes it in). The conversation side of a
// rewind lives here: "keep" adds a note to the transcript (the model is told the files were
// restored), "fork" forks the session from before the message (a fork into a worktree moves the
// new session to the worktree's folder, a new project). A rewind is refused while the session
// runs. Errors reach the window as ServiceErrors with the store's or git's message.
import type { AgentMessage, CustomMessage } from "../../shared/agent-types.ts";
import { CHECKPOINT_REWIND, type CheckpointList, type RewindInfo } from "../../shared/ipc/checkpoint-schemas.ts";
import type { RequestParams, RequestResult, Session } from "../../shared/ipc/contract.ts";
import { ServiceError } from "../../shared/errors.ts";
import type { CheckpointService, SessionSource } from "./checkpoint-service.ts";
import { GitError } from "./git-runner.ts";
import type { Rewinder } from "./rewinder.ts";
import { CheckpointError } from "./shadow-types.ts";

/** What a rewind needs of the sessions: their transcripts, and the conversation side (note or fork). */
export interface RewindSessions extends SessionSource {
  isRunning(sessionId: number): boolean;
  /** A new session forked from this one at `position` (as the sessions service forks). */
  fork(sessionId: number, position: number): Session;
  create(projectId: number): Promise<Session>;
  moveToFolder(sessionId: number, folder: string): Session;
  /** Adds an entry (shown in the transcript) to an idle session. */
  addEntry(sessionId: number, entry: AgentMessage): Promise<void>;
}

export interface CheckpointRequestDeps {
  checkpoints: CheckpointService;
  rewinder: Rewinder;
  sessions: RewindSessions;
  /** Why checkpoints are unavailable (git missing…), or null. */
  unavailable: () => string | null;
  changed: (sessionId: number) => void;
}

async function guard<T>(action: () => Promise<T>): Promise<T> {
  try {
    return await action();
  } catch (error) {
    if (error instanceof ServiceError) throw error;
    if (error instanceof CheckpointError && error.failure === "project-missing") throw new ServiceError("not-found", error.message);
    if (error instanceof CheckpointError || error instanceof GitError) throw new ServiceError("failed", error.message);
    if (error instanceof Error && /Not a file id/.test(error.message)) throw new ServiceError("invalid", error.message);
    throw error;
  }
}

export function checkpointHandlers(deps: CheckpointRequestDeps) {
  const { checkpoints, rewinder, sessions } = deps;
  return {
    "checkpoints.list": ({ sessionId }: RequestParams<"checkpoints.list">): Promise<CheckpointList> =>
      guard(async () => {
        const { projectDir } = sessions.place(sessionId);
        const rewinds: RewindInfo[] = checkpoints.db.rewindsOf(sessionId).map((r) => ({
          id: r.id,
          label: r.summary.label,
          restored: r.summary.restored,
          removed: r.summary.removed,
          kept: r.summary.kept,
          destination: r.destination,
          createdAt: r.createdAt,
          undoneBy: r.undoneBy,
          undoable: r.destination === projectDir,
        }));
        const notice = deps.unavailable();
        return { available: notice === null, notice, maxFileBytes: checkpoints.maxFileBytes, turns: await checkpoints.sessionChanges(sessions, sessionId), rewinds };
      }),
    "checkpoints.diff": ({ sessionId, fromId, toId, fileId }: RequestParams<"checkpoints.diff">): Promise<RequestResult<"checkpoints.diff">> =>
      guard(() => checkpoints.fileDiff(sessions, sessionId, fromId, toId, fileId)),
    "checkpoints.preview": ({ sessionId, position, undoOf }: RequestParams<"checkpoints.preview">): Promise<RequestResult<"checkpoints.preview">> =>
      guard(async () => {
        if ((position === undefined) === (undoOf === undefined)) throw new ServiceError("invalid", "Give either position (a user message) or undoOf (a rewind).");
        if (sessions.isRunning(sessionId)) throw new ServiceError("invalid", "The session is running: stop it before rewinding files.");
        return rewinder.preview(sessions, sessionId, position !== undefined ? { position } : { undoOf: undoOf! });
      }),
    "checkpoints.rewind": (params: RequestParams<"checkpoints.rewind">): Promise<RequestResult<"checkpoints.rewind">> =>
      guard(async () => {
        const { sessionId, previewId, restore, conversation, destination } = params;
        if (sessions.isRunning(sessionId)) throw new ServiceError("invalid", "The session is running: stop it before rewinding files.");
        if (destination === "worktree" && conversation !== "fork") throw new ServiceError("invalid", "Files go to a new worktree only with a forked conversation.");
        const stored = rewinder.pending(previewId);
        if (!stored || stored.sessionId !== sessionId) throw new ServiceError("not-found", "That preview has expired: open the rewind again.");
        if (conversation === "fork" && stored.position === null) throw new ServiceError("invalid", "An undo keeps the conversation.");
        const result = await rewinder.apply(sessions, previewId, { restore, destination });
        if ("changed" in result) return { outcome: null, session: null, changed: result.changed };
        const { done } = result;
        let session: Session | null = null;
        if (conversation === "fork") {
          const position = stored.position!;
          const { projectId } = sessions.place(sessionId);
          session = position > 0 ? sessions.fork(sessionId, position - 1) : await sessions.create(projectId);
          if (done.worktree) session = sessions.moveToFolder(session.id, done.folder);
        } else {
          const counts = `${done.written} restored, ${done.removed} removed${done.skipped.length > 0 ? `, ${done.skipped.length} left as they were (changed meanwhile)` : ""}`;
          const note: CustomMessage = {
            role: "custom",
            customType: CHECKPOINT_REWIND,
            content:
              stored.undoOf !== null
                ? `The rewind of the project's files was undone (${counts}): files are as they were before it.`
                : `The project's files were restored to how they were before message ${stored.position! + 1} (${counts}). Changes made after that point are no longer in the files.`,
            display: true,
            details: { rewindId: done.rewindId, position: stored.position, undoOf: stored.undoOf },
            timestamp: Date.now(),
          };
          await sessions.addEntry(sessionId, note);
        }
        deps.changed(sessionId);
        return { outcome: done, session, changed: null };
      }),
  };
}
