// How many tokens a stored (not live) session's context holds, for the state shown when it is
// opened, read from its newest messages only. Throws only what reading a page throws.
import type { AgentMessage, CustomMessage } from "../../shared/agent-types.ts";
import { compactionDetails, compactionStateOf, type ActiveCompaction } from "../../shared/compaction.ts";
import type { MessagePage, TranscriptPage } from "../store/index.ts";
import { contextTokensOfTail } from "./context.ts";

/**
 * Context tokens of a stored session from its newest messages: back to the last answer with
 * usage (usually in the page); for sessions whose provider reports none, at most 5,000 messages
 * back (the figure is then an estimate of those; a run computes it exactly).
 */
export function storedContextTokens(opened: TranscriptPage, readBefore: (range: { before: number; limit: number }) => MessagePage): number {
  const state = compactionStateOf(opened.compactions);
  const entry = opened.compactions.find((c) => c.position === state.activeIndex)?.message;
  const details = entry ? compactionDetails(entry.details) : null;
  const active: ActiveCompaction | undefined = entry && details && state.activeIndex !== null ? { index: state.activeIndex, entry: entry as CustomMessage, details } : undefined;
  const atEnd = opened.first + opened.messages.length === opened.total;
  let first = atEnd ? opened.first : opened.total;
  let tail: AgentMessage[] = atEnd ? opened.messages : [];
  for (let read = 0; ; read++) {
    const tokens = contextTokensOfTail(tail, first, active, first === 0 || read >= 5);
    if (tokens !== null) return tokens;
    const before = readBefore({ before: first, limit: 1000 });
    tail = [...before.messages, ...tail];
    first = before.first;
  }
}
