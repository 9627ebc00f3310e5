// Compaction entries in a transcript, shared by the main process (which sends the model only
// what the compaction in force leaves) and the renderer (which shows every entry and its status).
// A `compaction` entry's summary stands in for every message before `details.firstKeptIndex`; an
// edit is a newer entry with the same cut that `replaces` the old one; a `compaction_undo` entry
// cancels a compaction and the versions an edit of it replaced. Pure functions over plain data.
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

export interface ActiveCompaction {
  index: number;
  entry: CustomMessage;
  details: CompactionDetails;
}

/** The compaction in force: the newest compaction entry that no later undo cancels. */
export function activeCompaction(transcript: readonly AgentMessage[]): ActiveCompaction | undefined {
  const undone = new Set<number>();
  for (let i = transcript.length - 1; i >= 0; i--) {
    const m = transcript[i]!;
    if (m.role !== "custom") continue;
    if (m.customType === COMPACTION_UNDO) {
      // Undoing a compaction also undoes the versions an edit of it replaced.
      let target = (m.details as { undoes?: number } | undefined)?.undoes;
      while (typeof target === "number" && !undone.has(target)) {
        undone.add(target);
        const entry = transcript[target];
        target = entry?.role === "custom" ? (entry.details as CompactionDetails | undefined)?.replaces : undefined;
      }
    } else if (m.customType === COMPACTION && !undone.has(i)) {
      return { index: i, entry: m, details: m.details as CompactionDetails };
    }
  }
  return undefined;
}
