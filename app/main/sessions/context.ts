// Context accounting and the model's view of a transcript. Pure functions, no I/O.
//
// The transcript keeps everything; compaction adds a `compaction` entry (a custom message) whose
// summary stands in for every message before `details.firstKeptIndex`. The model's view is then
// the summary, as a user message, followed by the transcript from that index on. An edit of a
// summary is a newer compaction entry with the same cut; an undo is a `compaction_undo` entry
// naming the compaction it cancels (and the versions an edit of it replaced). The transcript is
// append-only, so replaying a stored session rebuilds the same view.
import { CHECKPOINT_REWIND } from "../../shared/ipc/checkpoint-schemas.ts";
import type { AgentMessage, AssistantMessage, CustomMessage, Message, UserMessage } from "../../shared/agent-types.ts";
import { compactionDetails, compactionStateOf, type ActiveCompaction } from "../../shared/compaction.ts";
import { incrementalConversion } from "../loop/index.ts";

export { activeCompaction, COMPACTION, COMPACTION_UNDO, type CompactionDetails } from "../../shared/compaction.ts";

/** Rough tokens of a message: a quarter of its characters, ~1,200 per image. */
export function estimateTokens(message: AgentMessage): number {
  const chars = (text: string) => Math.ceil(text.length / 4);
  switch (message.role) {
    case "user":
      return typeof message.content === "string" ? chars(message.content) : message.content.reduce((n, c) => n + (c.type === "text" ? chars(c.text) : 1200), 0);
    case "assistant":
      return message.content.reduce((n, c) => n + (c.type === "text" ? chars(c.text) : c.type === "thinking" ? chars(c.thinking) : chars(c.name + JSON.stringify(c.arguments))), 0);
    case "toolResult":
      return message.content.reduce((n, c) => n + (c.type === "text" ? chars(c.text) : 1200), 0);
    case "custom":
      return chars(message.content);
  }
}

export function summaryMessage(summary: string, timestamp: number): UserMessage {
  return {
    role: "user",
    content: `The conversation so far was compacted to stay within the context window. Summary of the earlier part:\n\n<summary>\n${summary}\n</summary>`,
    timestamp,
  };
}

/** The transcript's custom entries with their positions, kept per transcript as it grows (append-only). */
const customEntries = new WeakMap<AgentMessage, { count: number; last: AgentMessage; entries: { position: number; message: AgentMessage }[] }>();

/**
 * The compaction in force (shared/compaction.ts's activeCompaction), scanning only the messages
 * added since the last call on this transcript: it runs before every request. A transcript that
 * is not the last one seen grown at its end (truncated, forked) is scanned again.
 */
export function activeCompactionOf(transcript: readonly AgentMessage[]): ActiveCompaction | undefined {
  const n = transcript.length;
  if (n === 0) return undefined;
  let seen = customEntries.get(transcript[0]!);
  if (!seen || seen.count > n || transcript[seen.count - 1] !== seen.last) {
    seen = { count: 0, last: transcript[0]!, entries: [] };
    customEntries.set(transcript[0]!, seen);
  }
  for (let i = seen.count; i < n; i++) if (transcript[i]!.role === "custom") seen.entries.push({ position: i, message: transcript[i]! });
  seen.count = n;
  seen.last = transcript[n - 1]!;
  const { activeIndex } = compactionStateOf(seen.entries);
  if (activeIndex === null) return undefined;
  const entry = transcript[activeIndex] as CustomMessage;
  const details = compactionDetails(entry.details);
  return details ? { index: activeIndex, entry, details } : undefined;
}

// One message object per summary and per rewind note: the providers' conversion reuses what it
// converted by the identity of the messages it is given (loop/incremental-conversion.ts).
const summaries = new WeakMap<CustomMessage, UserMessage>();
const rewindNotes = new WeakMap<CustomMessage, UserMessage>();

function summaryOf(entry: CustomMessage): UserMessage {
  let summary = summaries.get(entry);
  if (!summary) summaries.set(entry, (summary = summaryMessage(entry.content, entry.timestamp)));
  return summary;
}

function keptForModel(messages: readonly AgentMessage[]): Message[] {
  const view: Message[] = [];
  for (const m of messages) {
    if (m.role === "custom") {
      // A rewind of the files is news to the model: its earlier edits are gone from the disk.
      if (m.customType === CHECKPOINT_REWIND) {
        let note = rewindNotes.get(m);
        if (!note) rewindNotes.set(m, (note = { role: "user", content: `[Lathe] ${m.content}`, timestamp: m.timestamp }));
        view.push(note);
      }
      continue;
    }
    if (m.role === "assistant" && isEmptyFailure(m)) continue;
    view.push(m);
  }
  return view;
}

const viewIncrementally = incrementalConversion<AgentMessage, Message, undefined>({ convert: keptForModel, splitsBefore: () => true });

/**
 * What the model is sent: the active compaction's summary plus the kept messages, without app
 * entries, and without failed answers that carry nothing (a context overflow, an empty error).
 * Built before every request, so only the messages added since the last call are looked at.
 */
export function modelView(transcript: readonly AgentMessage[]): Message[] {
  const active = activeCompactionOf(transcript);
  if (!active) return viewIncrementally(transcript, "", undefined);
  return viewIncrementally(transcript, "", undefined, [summaryOf(active.entry)], active.details.firstKeptIndex);
}

/**
 * modelView of the transcript's first `end` messages, under the compaction in force over the whole
 * transcript (so its cached conversion is the one modelView of the whole then reuses). For
 * preparing a request ahead (request-preparation.ts), not for sending.
 */
export function modelViewOfPrefix(transcript: readonly AgentMessage[], end: number): Message[] {
  const active = activeCompactionOf(transcript);
  const prefix = transcript.slice(0, end);
  if (!active) return viewIncrementally(prefix, "", undefined);
  if (end <= active.details.firstKeptIndex) return [];
  return viewIncrementally(prefix, "", undefined, [summaryOf(active.entry)], active.details.firstKeptIndex);
}

function isEmptyFailure(m: AssistantMessage): boolean {
  return (m.stopReason === "error" || m.stopReason === "aborted") && (m.contextOverflow === true || m.content.length === 0);
}

/**
 * Tokens the next request would carry: the provider's count for everything up to the last
 * answer that reported usage (when no compaction came after it), plus estimates for the rest.
 */
export function contextTokens(transcript: readonly AgentMessage[]): number {
  const active = activeCompactionOf(transcript);
  const floor = active ? active.index : -1;
  let lastUsage = -1;
  for (let i = transcript.length - 1; i > floor; i--) {
    const m = transcript[i]!;
    if (m.role === "assistant" && m.usage.totalTokens > 0 && !isEmptyFailure(m)) {
      lastUsage = i;
      break;
    }
  }
  if (lastUsage >= 0) {
    const u = (transcript[lastUsage] as AssistantMessage).usage;
    let tokens = u.input + u.cacheRead + u.cacheWrite + u.output;
    for (let i = lastUsage + 1; i < transcript.length; i++) if (transcript[i]!.role !== "custom") tokens += estimateTokens(transcript[i]!);
    return tokens;
  }
  return modelView(transcript).reduce((n, m) => n + estimateTokens(m), 0);
}

export interface CompactionPolicy {
  contextWindow: number;
  /** Tokens left free for the answer. */
  reserveTokens: number;
  /** Recent context kept verbatim. */
  keepRecentTokens: number;
}

export function compactionPolicy(model: { contextWindow: number; maxTokens: number }): CompactionPolicy {
  return {
    contextWindow: model.contextWindow,
    reserveTokens: Math.min(model.maxTokens, 16_384, Math.floor(model.contextWindow / 4)),
    keepRecentTokens: Math.min(20_000, Math.floor(model.contextWindow * 0.3)),
  };
}

export function needsCompaction(transcript: readonly AgentMessage[], policy: CompactionPolicy): boolean {
  return contextTokens(transcript) > policy.contextWindow - policy.reserveTokens;
}

/**
 * Where to cut: the transcript index of the user message from which the recent turns are kept,
 * so that they fit `keepRecentTokens`. A cut is always at a user message (never between a tool
 * call and its result) and after the active compaction's own cut; undefined when there is no such
 * point with anything before it to summarize.
 */
export function findCut(transcript: readonly AgentMessage[], keepRecentTokens: number): number | undefined {
  const active = activeCompactionOf(transcript);
  const floor = active ? active.details.firstKeptIndex : 0;
  let kept = 0;
  let cut: number | undefined;
  for (let i = transcript.length - 1; i > floor; i--) {
    const m = transcript[i]!;
    if (m.role === "custom") continue;
    kept += estimateTokens(m);
    if (m.role === "user") {
      if (kept > keepRecentTokens && cut !== undefined) break;
      cut = i;
      if (kept > keepRecentTokens) break;
    }
  }
  return cut;
}

/**
 * contextTokens for a transcript of which only the messages from `tailStart` on are at hand (a
 * page of a long session), given the compaction in force: the same figure once the tail reaches
 * back to the last answer with usage after that compaction or, when there is none, to the
 * compaction's first kept message (or the start). Null when it has to reach further back, unless
 * `giveUp`: then the estimate of what the tail holds.
 */
export function contextTokensOfTail(tail: readonly AgentMessage[], tailStart: number, active: ActiveCompaction | undefined, giveUp = false): number | null {
  const floor = active ? active.index : -1;
  for (let i = tail.length - 1; i >= 0 && tailStart + i > floor; i--) {
    const m = tail[i]!;
    if (m.role === "assistant" && m.usage.totalTokens > 0 && !isEmptyFailure(m)) {
      let tokens = m.usage.input + m.usage.cacheRead + m.usage.cacheWrite + m.usage.output;
      for (let j = i + 1; j < tail.length; j++) if (tail[j]!.role !== "custom") tokens += estimateTokens(tail[j]!);
      return tokens;
    }
  }
  const keptFrom = active ? active.details.firstKeptIndex : 0;
  if (!giveUp && (tailStart > floor + 1 || tailStart > keptFrom)) return null;
  let tokens = active ? estimateTokens(summaryMessage(active.entry.content, active.entry.timestamp)) : 0;
  for (let i = Math.max(0, keptFrom - tailStart); i < tail.length; i++) {
    const m = tail[i]!;
    if (m.role === "custom" || (m.role === "assistant" && isEmptyFailure(m))) continue;
    tokens += estimateTokens(m);
  }
  return tokens;
}
