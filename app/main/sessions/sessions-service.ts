// SessionsService: runs any number of sessions at once, each its own Agent over the store. Opens
// (resumes) sessions from their stored messages, starts runs, steers, queues follow-ups, aborts,
// retries a failed turn, switches models, forks. A session is "live" (holds an Agent and tools)
// from its first run until it is deleted or the service closes. Errors meant for the user are
// ServiceErrors with plain text. Opening returns a snapshot numbered with the session's event
// sequence (see EventHub): one page of the stored transcript with what the view needs without the
// rest (pages.ts), what waits to be written, and what is live. Nothing here reads a whole session
// except starting a run (the agent needs its transcript), forks and exports.
// Delete is a soft delete (undo: restore); deleted sessions are purged after PURGE_AFTER_MS.
// Beside it: its options and ports (sessions-options.ts), the models (session-models.ts), making a
// session live (new-live-session.ts), a stored session's context size (stored-context.ts).
import { homedir } from "node:os";
import { basename, isAbsolute, resolve } from "node:path";
import type { AgentMessage, ImageContent, Model } from "../../shared/agent-types.ts";
import { COMPACTION, COMPACTION_UNDO } from "../../shared/compaction.ts";
import type { LiveSnapshot, Session, SessionState } from "../../shared/ipc/contract.ts";
import { ServiceError } from "../../shared/errors.ts";
import { StoreError, type MessagePage, type PageOptions, type ProjectInfo, type TranscriptPage } from "../store/index.ts";
import { createCodingTools } from "../tools/index.ts";
import { sweepOutputFolders } from "./output-folders.ts";
import type { ResolvedFolder } from "./project-folder.ts";
import { folderToOpen, resolveFolderOffThread } from "./project-opening.ts";
import { StoredInstructionFiles } from "./stored-instruction-files.ts";
import { rerunRequestText, sandboxedCommand } from "../sandbox/rerun.ts";
import type { LiveSession } from "./live-session.ts";
import { createLiveSession } from "./new-live-session.ts";
import type { SessionLineage } from "./checkpoint-port.ts";
import { SessionModels } from "./session-models.ts";
import type { SessionsServiceOptions } from "./sessions-options.ts";
import { storedContextTokens } from "./stored-context.ts";

/** Deleted sessions stay restorable this long (the window's Undo lasts seconds; a quit in between keeps both). */
export const PURGE_AFTER_MS = 10 * 60_000;

let toolNames: string[] | undefined;
/** The names of the coding tools every session starts with. */
function codingToolNames(): string[] {
  return (toolNames ??= createCodingTools({ projectDir: process.cwd() }).tools.map((t) => t.name));
}

export class SessionsService {
  private readonly live = new Map<number, LiveSession>();
  /** Stored sessions' project instruction files, as last read (refreshInstructionFiles). */
  private readonly storedInstructionFiles = new StoredInstructionFiles();
  private readonly o: SessionsServiceOptions;
  private readonly purgeTimer: ReturnType<typeof setInterval> | undefined;
  private readonly modelChoice: SessionModels;

  /** The start-up sweep of saved-output folders (awaited by tests). */
  readonly swept: Promise<number>;

  constructor(options: SessionsServiceOptions) {
    this.o = options;
    this.modelChoice = new SessionModels(options.settings, options.env);
    // Saved-output folders of sessions removed for good go too (a crash between the two, or a
    // database restored from a backup, leaves them behind): swept at start and after each purge.
    this.swept = options.outputRoot && !options.store.readOnly ? sweepOutputFolders(options.outputRoot, (id) => this.hasSession(id)).catch(() => 0) : Promise.resolve(0);
    if (!options.store.readOnly) {
      this.purge();
      this.purgeTimer = setInterval(() => this.purge(), Math.max(1000, this.purgeAfterMs / 2));
      this.purgeTimer.unref?.();
    }
  }

  private get purgeAfterMs(): number {
    return this.o.purgeAfterMs ?? PURGE_AFTER_MS;
  }

  /** Removes for good the sessions deleted longer ago than the undo period. Never throws. */
  purge(): number {
    try {
      const removed = this.o.store.purgeDeletedSessions(Date.now() - this.purgeAfterMs);
      if (removed > 0 && this.o.outputRoot) void sweepOutputFolders(this.o.outputRoot, (id) => this.hasSession(id)).catch(() => 0);
      return removed;
    } catch (error) {
      console.error("[sessions] could not purge deleted sessions:", error);
      return 0;
    }
  }

  /** Whether a session is stored, deleted but restorable included (its saved outputs stay). */
  private hasSession(id: number): boolean {
    try {
      return this.o.store.sessionStored(id);
    } catch {
      return true; // the store is closing: delete nothing
    }
  }

  // Projects

  /** The home folder of the person the services run for (the environment's, else the OS's). */
  private get home(): string {
    const fromEnv = this.o.env?.HOME ?? this.o.env?.USERPROFILE;
    return fromEnv && isAbsolute(fromEnv) ? fromEnv : homedir();
  }

  /** Where a typed folder resolves to, the file system asked off the event loop (a hung mount: an error). */
  resolveFolder(folder: string): Promise<ResolvedFolder> {
    return resolveFolderOffThread(folder, this.home);
  }

  /** Opens a folder as a project; relative paths start at home; home, `/` and above need `confirmed`. */
  async openProject(folder: string, confirmed = false): Promise<ProjectInfo> {
    const path = await folderToOpen(folder, this.home, confirmed);
    return this.o.store.openProject(path, basename(path) || path);
  }

  // Models (session-models.ts)

  models(): Model[] {
    return this.modelChoice.models();
  }

  /** Models that can be reached: hosted ones whose provider has a key, and those a server listed. */
  usableModels(): Model[] {
    return this.modelChoice.usableModels();
  }

  resolveModel(ref: string | null | undefined): Model | undefined {
    return this.modelChoice.resolveModel(ref);
  }

  defaultModel(): Model | undefined {
    return this.modelChoice.defaultModel();
  }

  // Sessions

  async create(projectId: number, modelRef?: string): Promise<Session> {
    const project = this.o.store.getProject(projectId);
    if (!project) throw new ServiceError("not-found", `Project ${projectId} does not exist.`);
    // The project's first snapshot starts now, while the first prompt is typed.
    this.o.checkpoints?.prepare({ sessionId: 0, projectId, projectDir: project.folder });
    const model = modelRef ? this.resolveModel(modelRef) : this.defaultModel();
    if (modelRef && !model) throw new ServiceError("not-found", `Unknown model "${modelRef}".`);
    const extra = (await this.o.toolSource?.baseToolNames(projectId)) ?? [];
    return this.o.store.createSession({
      projectId,
      model: model ? `${model.provider}/${model.id}` : null,
      baseToolNames: [...codingToolNames(), ...extra],
    });
  }

  /**
   * The session now, at one page (the newest, or around a position), with `seq`, the number of the
   * last session event it reflects. Pending event batches are sent first, so no batch carries
   * events on both sides of the snapshot. Messages waiting to be written (a storage failure holds
   * them back) follow the stored ones: they count, and the newest page shows them.
   */
  open(sessionId: number, options: PageOptions = {}): { opened: TranscriptPage; state: SessionState; seq: number; live: LiveSnapshot | null } {
    this.o.hub.flush();
    const opened = this.o.store.openPage(sessionId, options);
    if (!opened) throw new ServiceError("not-found", `Session ${sessionId} does not exist.`);
    const live = this.live.get(sessionId);
    const unsaved = live?.unsavedMessages() ?? [];
    if (unsaved.length > 0) {
      const atEnd = opened.first + opened.messages.length === opened.total;
      unsaved.forEach((message, i) => {
        const position = opened.total + i;
        if (message.role === "toolResult") opened.activeToolNames = [...new Set([...opened.activeToolNames, ...(message.addedToolNames ?? [])])];
        if (message.role === "custom" && (message.customType === COMPACTION || message.customType === COMPACTION_UNDO)) opened.compactions.push({ position, message });
      });
      if (atEnd) opened.messages = [...opened.messages, ...unsaved];
      opened.total += unsaved.length;
    }
    return { opened, state: this.state(sessionId, opened), seq: this.o.hub.seqOf(sessionId), live: live?.live() ?? null };
  }

  /** More stored messages: before a position (scrolling up) or from one (down). */
  page(sessionId: number, range: { before: number; limit?: number } | { from: number; limit?: number }): MessagePage {
    this.session(sessionId);
    return this.o.store.readPage(sessionId, range);
  }

  /** The state of every live session (run since the service started). */
  liveStates(): SessionState[] {
    return [...this.live.values()].map((s) => s.state(this.o.permissions.pendingFor(s.sessionId)));
  }

  state(sessionId: number, opened?: TranscriptPage): SessionState {
    const live = this.live.get(sessionId);
    const pending = this.o.permissions.pendingFor(sessionId);
    if (live) return live.state(pending);
    const session = opened?.session ?? this.session(sessionId);
    const model = this.resolveModel(session.model);
    const project = this.o.store.getProject(session.projectId);
    return {
      sessionId,
      running: false,
      model: session.model,
      queued: { steering: [], followUp: [] },
      pendingPermissions: pending,
      contextTokens: opened ? storedContextTokens(opened, (range) => this.o.store.readPage(sessionId, range)) : 0,
      contextWindow: model?.contextWindow ?? 0,
      instructionFiles: project ? this.storedInstructionFiles.of(project.folder) : [],
    };
  }

  /** Starts a run, or (while one is going) steers it. A run starts once the instruction files were read again. */
  async prompt(sessionId: number, text: string, images: ImageContent[] = []): Promise<{ delivery: "prompt" | "steer" }> {
    if (!text.trim() && images.length === 0) throw new ServiceError("invalid", "The message is empty.");
    const live = this.liveSession(sessionId);
    if (!live.agent.isRunning) await this.loadInstructionsFor(sessionId, live);
    // Another prompt may have started a run meanwhile: this one steers it then.
    if (live.agent.isRunning) {
      live.steer(text, images);
      return { delivery: "steer" };
    }
    live.prompt(text, images);
    return { delivery: "prompt" };
  }

  steer(sessionId: number, text: string, images: ImageContent[] = []): void {
    const live = this.liveSession(sessionId);
    // While it compacts outside a run, steer refuses with why.
    if (!live.busy) throw new ServiceError("invalid", "The session is not running: send the message as a prompt.");
    live.steer(text, images);
  }

  async followUp(sessionId: number, text: string, images: ImageContent[] = []): Promise<void> {
    const live = this.liveSession(sessionId);
    if (!live.agent.isRunning) await this.loadInstructionsFor(sessionId, live);
    if (!live.agent.isRunning) live.prompt(text, images);
    else live.followUp(text, images);
  }

  retry(sessionId: number): Promise<void> {
    return this.userAction(async () => {
      const live = this.liveSession(sessionId);
      await this.loadInstructionsFor(sessionId, live);
      live.retry();
    });
  }

  /** The session's instruction files read again; refuses when the session was deleted or closed meanwhile. */
  private async loadInstructionsFor(sessionId: number, live: LiveSession): Promise<void> {
    await live.loadInstructions();
    if (this.live.get(sessionId) !== live) throw new ServiceError("not-found", "The session was closed or deleted before the message was sent.");
  }

  /** Reads a stored session's project instruction files again, for its state (stored-instruction-files.ts). */
  async refreshInstructionFiles(sessionId: number): Promise<void> {
    if (this.live.has(sessionId)) return;
    const project = this.o.store.getProject(this.session(sessionId).projectId);
    if (project) await this.storedInstructionFiles.refresh(project.folder);
  }

  abort(sessionId: number): void {
    this.o.permissions.cancelSession(sessionId);
    this.live.get(sessionId)?.abort();
  }

  setModel(sessionId: number, ref: string): SessionState {
    const model = this.resolveModel(ref);
    if (!model) throw new ServiceError("not-found", `Unknown model "${ref}".`);
    const live = this.live.get(sessionId);
    if (live) live.setModel(model);
    else this.o.store.setSessionModel(this.session(sessionId).id, ref);
    const state = this.state(sessionId);
    this.o.hub.emit("session.state", state);
    return state;
  }

  compact(sessionId: number): Promise<{ compacted: boolean; message: string }> {
    return this.userAction(() => this.liveSession(sessionId).compactNow());
  }

  editCompaction(sessionId: number, index: number, summary: string): Promise<void> {
    return this.userAction(() => this.liveSession(sessionId).editCompaction(index, summary));
  }

  undoCompaction(sessionId: number, index: number): Promise<void> {
    return this.userAction(() => this.liveSession(sessionId).undoCompaction(index));
  }

  /** Runs an action whose failures are the user's to read, as invalid-request errors. */
  private async userAction<T>(action: () => Promise<T>): Promise<T> {
    try {
      return await action();
    } catch (error) {
      if (error instanceof ServiceError) throw error;
      throw new ServiceError("failed", (error as Error).message);
    }
  }

  rename(sessionId: number, title: string): Session {
    this.guard(() => this.o.store.renameSession(sessionId, title));
    return this.updated(sessionId);
  }

  archive(sessionId: number, archived: boolean): Session {
    this.guard(() => this.o.store.archiveSession(sessionId, archived));
    return this.updated(sessionId);
  }

  /** Stops the session and marks it deleted (stored at once); restore() undoes it until it is purged. */
  async delete(sessionId: number): Promise<void> {
    this.session(sessionId);
    this.o.permissions.cancelSession(sessionId);
    const live = this.live.get(sessionId);
    this.live.delete(sessionId);
    await live?.dispose();
    this.guard(() => this.o.store.softDeleteSession(sessionId));
  }

  restore(sessionId: number): Session {
    this.guard(() => this.o.store.restoreSession(sessionId));
    return this.updated(sessionId);
  }

  /** A finished tool call's stored terminal log. */
  toolOutput(sessionId: number, toolCallId: string): { text: string; totalChars: number; truncated: boolean } {
    this.session(sessionId);
    const output = this.o.store.toolOutput(sessionId, toolCallId);
    if (!output) throw new ServiceError("not-found", "No output was stored for that tool call.");
    return { text: output.text, totalChars: output.totalChars, truncated: output.truncated };
  }

  fork(sessionId: number, position: number): Session {
    return this.guard(() => this.o.store.forkSession(sessionId, position));
  }

  writeInput(sessionId: number, toolCallId: string, data: string): void {
    if (!this.live.get(sessionId)?.tools.writeInput(toolCallId, data)) {
      throw new ServiceError("not-found", "That command is no longer running.");
    }
  }

  interrupt(sessionId: number, toolCallId: string): void {
    if (!this.live.get(sessionId)?.interrupt(toolCallId)) {
      throw new ServiceError("not-found", "That command is no longer running.");
    }
  }

  /** Asks the agent to run a sandboxed command again outside the sandbox; the dialog asks first. */
  rerunOutsideSandbox(sessionId: number, toolCallId: string): Promise<{ delivery: "prompt" | "steer" }> {
    if (!this.o.sandbox) throw new ServiceError("unavailable", "Commands do not run in a sandbox here.");
    const found = sandboxedCommand(this.liveSession(sessionId).agent.messages, toolCallId);
    if ("error" in found) throw new ServiceError("invalid", found.error);
    this.o.sandbox.requestOutside(sessionId, found.command);
    return this.prompt(sessionId, rerunRequestText(found.command));
  }

  /** The session's project and its fork lineage, without reading its messages. */
  place(sessionId: number): { projectId: number; projectDir: string; lineage: SessionLineage } {
    const session = this.session(sessionId);
    const project = this.o.store.getProject(session.projectId);
    if (!project) throw new ServiceError("not-found", `The project of session ${sessionId} is gone.`);
    const parents: SessionLineage["parents"] = [];
    for (let at: Session | undefined = session; at?.parentSessionId != null && at.forkPosition != null && parents.length < 100;) {
      parents.push({ sessionId: at.parentSessionId, forkPosition: at.forkPosition });
      at = this.o.store.getSession(at.parentSessionId);
    }
    return { projectId: project.id, projectDir: project.folder, lineage: { sessionId, parents } };
  }

  /** The session's whole transcript (live or stored), its project, and its fork lineage. */
  transcript(sessionId: number): { messages: readonly AgentMessage[]; projectId: number; projectDir: string; lineage: SessionLineage } {
    const place = this.place(sessionId);
    const live = this.live.get(sessionId);
    const messages = live ? live.agent.messages : (this.o.store.openSession(sessionId)?.messages ?? []);
    return { messages, ...place };
  }

  /** The message at `position` of the session's transcript (live, or one stored row), if any. */
  messageAt(sessionId: number, position: number): AgentMessage | undefined {
    this.session(sessionId);
    const live = this.live.get(sessionId);
    if (live) return live.agent.messages[position];
    return Number.isSafeInteger(position) && position >= 0 ? this.o.store.readMessages(sessionId, position, position + 1)[0] : undefined;
  }

  /** Adds an app entry (shown in the transcript) to an idle session. */
  async addEntry(sessionId: number, entry: AgentMessage): Promise<void> {
    const live = this.live.get(sessionId);
    if (live) return this.userAction(() => live.addEntry(entry));
    this.guard(() => this.o.store.appendMessage(this.session(sessionId).id, entry));
  }

  /** Moves a session to the project of another folder (a fork restored into a new worktree). */
  moveToFolder(sessionId: number, folder: string): Session {
    // A worktree Lathe has just made: an absolute folder, never a broad one.
    const path = resolve(folder);
    const project = this.o.store.openProject(path, basename(path) || path);
    this.guard(() => this.o.store.setSessionProject(sessionId, project.id));
    return this.updated(sessionId);
  }

  /** Running, or compacting outside a run (what its state reports as running). */
  isRunning(sessionId: number): boolean {
    return this.live.get(sessionId)?.busy ?? false;
  }

  async close(): Promise<void> {
    if (this.purgeTimer) clearInterval(this.purgeTimer);
    const sessions = [...this.live.values()];
    this.live.clear();
    await Promise.all(sessions.map((s) => s.dispose()));
  }

  private session(sessionId: number): Session {
    const session = this.o.store.getSession(sessionId);
    if (!session) throw new ServiceError("not-found", `Session ${sessionId} does not exist.`);
    return session;
  }

  private updated(sessionId: number): Session {
    const session = this.session(sessionId);
    this.o.hub.emit("session.updated", session);
    return session;
  }

  private guard<T>(fn: () => T): T {
    try {
      return fn();
    } catch (error) {
      if (error instanceof StoreError && error.failure === "not-found") throw new ServiceError("not-found", error.message);
      if (error instanceof StoreError && error.failure === "invalid") throw new ServiceError("invalid", error.message);
      throw error;
    }
  }

  private liveSession(sessionId: number): LiveSession {
    const existing = this.live.get(sessionId);
    if (existing) return existing;
    const live = createLiveSession(this.o, this.modelChoice, sessionId);
    this.live.set(sessionId, live);
    return live;
  }
}
