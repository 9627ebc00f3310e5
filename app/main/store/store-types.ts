// The store's public data shapes: plain serialisable values, safe to send over IPC.
import type { AgentMessage, CustomMessage, SessionEvent } from "../../shared/agent-types.ts";
import type { ToolCallTime } from "./tool-calls.ts";
import type { ToolOutputInfo } from "./tool-output.ts";

export type { ToolCallTime, ToolOutputInfo };

export interface ProjectInfo {
  id: number;
  folder: string;
  name: string;
  createdAt: number;
  lastOpenedAt: number;
}

export interface SessionInfo {
  id: number;
  projectId: number;
  /** From the first prompt until renamed; null before the first user message. */
  title: string | null;
  createdAt: number;
  updatedAt: number;
  /** Free-form model reference, e.g. "anthropic/claude-sonnet-4-5". */
  model: string | null;
  /** Tools active from the start; tool-result messages' addedToolNames extend them. */
  baseToolNames: string[];
  /** Set on forks: the session this one was forked from (null once that one is deleted). */
  parentSessionId: number | null;
  /** Set on forks: the last position of the parent's history that this session copied. */
  forkPosition: number | null;
  messageCount: number;
  tokens: number;
  cost: number;
  archivedAt: number | null;
}

export interface NewSession {
  projectId: number;
  model?: string | null;
  baseToolNames?: readonly string[];
  title?: string | null;
}

/** Keyset cursor for paging the session list (stable while sessions are added). */
export interface SessionCursor {
  updatedAt: number;
  id: number;
}

export interface ListSessionsOptions {
  /** Omit for all projects. */
  projectId?: number;
  /** false (default): active sessions only; true: archived only. */
  archived?: boolean;
  /** Default 50, at most 500. */
  limit?: number;
  cursor?: SessionCursor | null;
}

export interface SessionPage {
  sessions: SessionInfo[];
  nextCursor: SessionCursor | null;
}

export type RunStatus = "running" | "completed" | "interrupted";

export interface RunInfo {
  id: number;
  sessionId: number;
  startedAt: number;
  endedAt: number | null;
  status: RunStatus;
}

/** One logged lifecycle event (what the messages do not say: provider retries; see event-log.ts). */
export interface StoredEvent {
  runId: number;
  seq: number;
  /** Milliseconds since the epoch when the recorder received it. */
  at: number;
  event: SessionEvent;
}

/** A whole session, read in full: for exports, forks and resuming (opening reads a page). */
export interface OpenedSession {
  session: SessionInfo;
  messages: AgentMessage[];
  /** activeToolNames[i]: the tools active after message i (base tools plus every name added at or before i). */
  activeToolNames: string[][];
  runs: RunInfo[];
  /** Every run's logged events in emission order (runs oldest first): provider retries. */
  events: StoredEvent[];
  /** When each tool call started and ended. */
  toolCalls: ToolCallTime[];
  /** Tool calls with a stored terminal log (fetched per call: SessionStore.toolOutput). */
  outputs: ToolOutputInfo[];
}

/** Consecutive messages of a session, with what their tool cards need. */
export interface MessagePage {
  /** Position of messages[0]. */
  first: number;
  messages: AgentMessage[];
  /** Start and end times of the page's tool calls. */
  toolCalls: ToolCallTime[];
  /** The page's tool calls that have a stored terminal log. */
  outputs: ToolOutputInfo[];
}

/** A compaction entry or its undo, wherever it is in the session. */
export interface CompactionMark {
  position: number;
  message: CustomMessage;
}

/**
 * A session opened for the view: one page of messages plus everything the view needs to be
 * correct without the others. Costs O(page + marked messages), whatever the session's length.
 */
export interface TranscriptPage extends MessagePage {
  session: SessionInfo;
  /** Messages in the session (positions 0..total-1). */
  total: number;
  /** The tools active after the last message (base tools plus every addedToolNames). */
  activeToolNames: string[];
  /** Every compaction entry and undo of the session, in order: which summary is in force and what it covers. */
  compactions: CompactionMark[];
}

export interface PageOptions {
  /** Messages per page: default 200, at most 1,000. */
  limit?: number;
  /** Open at the page around this position (a search hit) instead of the newest page. */
  around?: number;
}

export interface SnippetPart {
  text: string;
  /** True for the parts that matched the query. */
  match: boolean;
}

export interface SearchHit {
  sessionId: number;
  sessionTitle: string | null;
  projectId: number;
  /** Position of the message the hit is in (open the session and scroll to it). */
  position: number;
  role: AgentMessage["role"];
  snippet: SnippetPart[];
}

export interface SearchOptions {
  projectId?: number;
  /** Include archived sessions (default false). */
  includeArchived?: boolean;
  /** Default 20, at most 200. */
  limit?: number;
  /** For the next page: the `nextCursor` of the previous result. */
  cursor?: number | null;
}

export interface SearchResult {
  hits: SearchHit[];
  nextCursor: number | null;
}
