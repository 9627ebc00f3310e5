// Which compaction entries of a transcript are in force, for the session view. A pure fold of the
// messages mirroring the main process's rule (app/main/sessions/context.ts): the compaction in
// force is the newest `compaction` entry no `compaction_undo` cancels; undoing an edited summary
// also cancels the versions the edit replaced. Never throws on odd details (a damaged entry is
// shown as it is, without a status it cannot have).
import type { AgentMessage } from "../../../shared/agent-types";

export const COMPACTION = "compaction";
export const COMPACTION_UNDO = "compaction_undo";

export interface CompactionDetails {
  firstKeptIndex: number;
  tokensBefore: number;
  tokensAfter: number;
  trigger: "threshold" | "overflow" | "manual" | "edit";
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
  const entries: number[] = [];
  const undone = new Set<number>();
  const replaced = new Set<number>();
  messages.forEach((m, i) => {
    if (m.role !== "custom") return;
    if (m.customType === COMPACTION) {
      entries.push(i);
      const replaces = compactionDetails(m.details)?.replaces;
      if (typeof replaces === "number") replaced.add(replaces);
    } else if (m.customType === COMPACTION_UNDO) {
      let target = (m.details as { undoes?: unknown } | undefined)?.undoes;
      while (typeof target === "number" && !undone.has(target)) {
        undone.add(target);
        const entry = messages[target];
        target = entry?.role === "custom" ? compactionDetails(entry.details)?.replaces : undefined;
      }
    }
  });
  if (entries.length === 0) return NO_COMPACTION;
  const activeIndex = entries.findLast((i) => !undone.has(i)) ?? null;
  const statusOf = new Map<number, CompactionStatus>();
  for (const i of entries) {
    statusOf.set(i, i === activeIndex ? "active" : replaced.has(i) ? "replaced" : undone.has(i) ? "undone" : "superseded");
  }
  const active = activeIndex === null ? null : messages[activeIndex];
  const firstKeptIndex = active?.role === "custom" ? (compactionDetails(active.details)?.firstKeptIndex ?? 0) : 0;
  return { activeIndex, firstKeptIndex, statusOf };
}
