// Compaction entries in a transcript, shared by the main process (which sends the model only what
// the compaction in force leaves) and the renderer (which shows every entry with its status).
// A `compaction` entry's summary stands in for every message before `details.firstKeptIndex`; an
// edit is a newer entry with the same cut that `replaces` the old one; a `compaction_undo` entry
// cancels a compaction and the versions an edit of it replaced. The compaction in force is the
// newest entry no undo cancels. Pure functions over plain data; odd details never throw.
import type { AgentMessage, CustomMessage } from "./agent-types.ts";

export const COMPACTION = "compaction";
export const COMPACTION_UNDO = "compaction_undo";

export interface CompactionDetails {
  /** Transcript index of the first message kept verbatim. */
  firstKeptIndex: number;
  /** Estimated tokens of the context before and after. */
  tokensBefore: number;
  tokensAfter: number;
  trigger: "threshold" | "overflow" | "manual" | "edit";
  /** For an edit: the transcript index of the entry it replaces. */
  replaces?: number;
}

/** active: in force; replaced: an edit took its place; undone: cancelled; superseded: a newer summary covers it. */
export type CompactionStatus = "active" | "replaced" | "undone" | "superseded";

export interface CompactionState {
  /** Transcript index of the compaction in force, or null. */
  activeIndex: number | null;
  /** Messages before this index are summarized: not sent to the model (0 when none are). */
  firstKeptIndex: number;
  statusOf: ReadonlyMap<number, CompactionStatus>;
}

export const NO_COMPACTION: CompactionState = { activeIndex: null, firstKeptIndex: 0, statusOf: new Map() };

export function compactionDetails(details: unknown): CompactionDetails | null {
  const d = details as Partial<CompactionDetails> | null | undefined;
  return d && typeof d.firstKeptIndex === "number" ? (d as CompactionDetails) : null;
}

export function compactionState(messages: readonly AgentMessage[]): CompactionState {
  const entries: { position: number; message: AgentMessage }[] = [];
  messages.forEach((message, position) => {
    if (message.role === "custom") entries.push({ position, message });
  });
  return compactionStateOf(entries);
}

/**
 * The same, from a transcript's custom entries alone (with their positions, in order): what a
 * view that holds one page of a long session knows (every compaction entry and undo is listed).
 */
export function compactionStateOf(entries: Iterable<{ position: number; message: AgentMessage }>): CompactionState {
  const compactions: number[] = [];
  const byPosition = new Map<number, AgentMessage>();
  const undone = new Set<number>();
  const replaced = new Set<number>();
  for (const { position, message: m } of entries) {
    if (m.role !== "custom") continue;
    byPosition.set(position, m);
    if (m.customType === COMPACTION) {
      compactions.push(position);
      const replaces = compactionDetails(m.details)?.replaces;
      if (typeof replaces === "number") replaced.add(replaces);
    } else if (m.customType === COMPACTION_UNDO) {
      let target = (m.details as { undoes?: unknown } | undefined)?.undoes;
      while (typeof target === "number" && !undone.has(target)) {
        undone.add(target);
        const entry = byPosition.get(target);
        target = entry?.role === "custom" ? compactionDetails(entry.details)?.replaces : undefined;
      }
    }
  }
  if (compactions.length === 0) return NO_COMPACTION;
  const activeIndex = compactions.findLast((i) => !undone.has(i)) ?? null;
  const statusOf = new Map<number, CompactionStatus>();
  for (const i of compactions) {
    statusOf.set(i, i === activeIndex ? "active" : replaced.has(i) ? "replaced" : undone.has(i) ? "undone" : "superseded");
  }
  const active = activeIndex === null ? undefined : byPosition.get(activeIndex);
  const firstKeptIndex = active?.role === "custom" ? (compactionDetails(active.details)?.firstKeptIndex ?? 0) : 0;
  return { activeIndex, firstKeptIndex, statusOf };
}

export interface ActiveCompaction {
  index: number;
  entry: CustomMessage;
  details: CompactionDetails;
}

/** The compaction in force, with its entry and details. */
export function activeCompaction(transcript: readonly AgentMessage[]): ActiveCompaction | undefined {
  const { activeIndex } = compactionState(transcript);
  if (activeIndex === null) return undefined;
  const entry = transcript[activeIndex] as CustomMessage;
  const details = compactionDetails(entry.details);
  return details ? { index: activeIndex, entry, details } : undefined;
}
