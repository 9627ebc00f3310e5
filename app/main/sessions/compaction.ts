// Compaction: summarizes the older part of a session with the session's own model, so that the
// recent turns can be sent verbatim with the summary in front. Returns the compaction entry to
// append to the transcript (the full history stays); throws with a plain message when the model
// cannot summarize (the caller reports it and carries on without compacting).
import type { AgentMessage, CustomMessage, Message, Model } from "../../shared/agent-types.ts";
import type { StreamFn } from "../loop/index.ts";
import { COMPACTION, estimateTokens, findCut, modelView, type CompactionDetails } from "./context.ts";

const SUMMARY_PROMPT = `You are summarizing the earlier part of a coding session so that the work can continue with only this summary and the recent messages. Write a concise, factual summary in Markdown with these sections:

## Goal
What the user wants, in their terms, including constraints and preferences they stated.
## Decisions
What was decided and why, including approaches tried and rejected.
## Files
Files read, created or changed, with what was done to each.
## State
What is done and verified, what commands or tests were run and their outcome.
## Open problems
What is unfinished, failing or uncertain, and the next steps.

Keep exact names (files, functions, commands, error messages). Do not invent anything.`;

export interface CompactionInput {
  transcript: readonly AgentMessage[];
  model: Model;
  streamFn: StreamFn;
  apiKey?: string;
  keepRecentTokens: number;
  trigger: CompactionDetails["trigger"];
  signal?: AbortSignal;
}

/** Files the summarized part touched, from its tool calls: facts the summary must keep. */
function touchedFiles(messages: readonly AgentMessage[]): { read: string[]; changed: string[] } {
  const read = new Set<string>();
  const changed = new Set<string>();
  for (const m of messages) {
    if (m.role !== "assistant") continue;
    for (const c of m.content) {
      if (c.type !== "toolCall" || typeof c.arguments.path !== "string") continue;
      if (c.name === "edit" || c.name === "write") changed.add(c.arguments.path);
      else if (c.name === "read") read.add(c.arguments.path);
    }
  }
  return { read: [...read].filter((p) => !changed.has(p)), changed: [...changed] };
}

export async function compactTranscript(input: CompactionInput): Promise<CustomMessage | undefined> {
  const cut = findCut(input.transcript, input.keepRecentTokens);
  if (cut === undefined) return undefined;
  const before = modelView(input.transcript);
  // The part to summarize, as the model sees it: the previous summary (if any) and what follows
  // it up to the cut.
  const head = modelView(input.transcript.slice(0, cut));
  if (head.length === 0) return undefined;
  const files = touchedFiles(input.transcript.slice(0, cut));
  const facts = [files.changed.length ? `Files changed: ${files.changed.join(", ")}` : "", files.read.length ? `Files read: ${files.read.join(", ")}` : ""].filter(Boolean);
  const request: Message[] = [
    ...head,
    {
      role: "user",
      content: `Summarize the conversation above for continuing the work.${facts.length ? `\n\nFrom the tool calls:\n${facts.join("\n")}` : ""}`,
      timestamp: Date.now(),
    },
  ];
  const stream = input.streamFn(input.model, { systemPrompt: SUMMARY_PROMPT, messages: request }, { signal: input.signal, apiKey: input.apiKey, maxTokens: 4096 });
  const answer = await stream.result();
  if (answer.stopReason === "error" || answer.stopReason === "aborted") {
    throw new Error(`The model could not summarize the session: ${answer.errorMessage ?? answer.stopReason}`);
  }
  const summary = answer.content
    .map((c) => (c.type === "text" ? c.text : ""))
    .join("")
    .trim();
  if (!summary) throw new Error("The model returned an empty summary.");
  const after = [summary, ...input.transcript.slice(cut).filter((m) => m.role !== "custom")];
  const details: CompactionDetails = {
    firstKeptIndex: cut,
    tokensBefore: before.reduce((n, m) => n + estimateTokens(m), 0),
    tokensAfter: after.reduce<number>((n, m) => n + (typeof m === "string" ? Math.ceil(m.length / 4) : estimateTokens(m)), 0),
    trigger: input.trigger,
  };
  return { role: "custom", customType: COMPACTION, content: summary, display: true, details, timestamp: Date.now() };
}
