// Session export: Markdown for people (the conversation as it reads: prompts, answers, tool calls
// with their arguments, tool results; thinking as quotes; images as a placeholder) and JSON for
// programs (everything: session, messages, active tool sets, runs, tool call times and the logged
// events). Version 2 (Lathe's schema 6): the message events that version 1 listed are implied by
// the messages; tool call start and end times are in `toolCalls`. Pure.
import type { AgentMessage, ToolCall } from "../../shared/agent-types.ts";
import type { OpenedSession, ProjectInfo, RunInfo, SessionInfo, StoredEvent, ToolCallTime } from "./store-types.ts";

export interface SessionExport {
  format: "lathe-session";
  version: 2;
  exportedAt: string;
  project: ProjectInfo | null;
  session: SessionInfo;
  messages: AgentMessage[];
  activeToolNames: string[][];
  runs: RunInfo[];
  toolCalls: ToolCallTime[];
  /** Logged events the messages do not imply (provider retries). */
  events: StoredEvent[];
}

export function sessionToJson(opened: OpenedSession, project: ProjectInfo | undefined): SessionExport {
  return {
    format: "lathe-session",
    version: 2,
    exportedAt: new Date().toISOString(),
    project: project ?? null,
    session: opened.session,
    messages: opened.messages,
    activeToolNames: opened.activeToolNames,
    runs: opened.runs,
    toolCalls: opened.toolCalls,
    events: opened.events,
  };
}

/** A fenced code block whose fence is longer than any backtick run inside `text`. */
function fenced(text: string, language = ""): string {
  const longest = Math.max(2, ...[...text.matchAll(/`+/g)].map((m) => m[0].length));
  const fence = "`".repeat(longest + 1);
  return `${fence}${language}\n${text}\n${fence}`;
}

function quoted(text: string): string {
  return text
    .split("\n")
    .map((line) => `> ${line}`)
    .join("\n");
}

function time(ms: number): string {
  return Number.isFinite(ms) ? new Date(ms).toISOString().replace("T", " ").slice(0, 19) + " UTC" : "";
}

function toolCallMarkdown(call: ToolCall): string {
  return `**Tool call** \`${call.name}\` (${call.id})\n\n${fenced(JSON.stringify(call.arguments, null, 2), "json")}`;
}

function messageMarkdown(message: AgentMessage): string {
  const parts: string[] = [];
  switch (message.role) {
    case "user":
      parts.push(`## User · ${time(message.timestamp)}`);
      if (typeof message.content === "string") parts.push(message.content);
      else for (const b of message.content) parts.push(b.type === "text" ? b.text : `*[image: ${b.mimeType}]*`);
      break;
    case "assistant":
      parts.push(`## Assistant · ${message.provider}/${message.model} · ${time(message.timestamp)}`);
      for (const b of message.content) {
        if (b.type === "text") parts.push(b.text);
        else if (b.type === "thinking") parts.push(b.redacted ? "> *[redacted thinking]*" : quoted(b.thinking));
        else parts.push(toolCallMarkdown(b));
      }
      if (message.stopReason === "error" || message.stopReason === "aborted") parts.push(`*[${message.stopReason}${message.errorMessage ? `: ${message.errorMessage}` : ""}]*`);
      break;
    case "toolResult":
      parts.push(`### Tool result \`${message.toolName}\` (${message.toolCallId})${message.isError ? " · error" : ""}`);
      for (const b of message.content) parts.push(b.type === "text" ? fenced(b.text) : `*[image: ${b.mimeType}]*`);
      break;
    case "custom":
      if (!message.display) return "";
      parts.push(`*${message.customType}:* ${message.content}`);
      break;
  }
  return parts.filter((p) => p !== "").join("\n\n");
}

export function sessionToMarkdown(opened: OpenedSession, project: ProjectInfo | undefined): string {
  const { session, messages } = opened;
  const header = [
    `# ${session.title ?? "Untitled session"}`,
    [
      project ? `Project: ${project.name} (\`${project.folder}\`)` : null,
      `Created: ${time(session.createdAt)}`,
      session.model ? `Model: ${session.model}` : null,
      `Messages: ${session.messageCount}`,
      `Tokens: ${session.tokens}`,
      `Cost: $${session.cost.toFixed(4)}`,
      session.parentSessionId !== null ? `Forked from session ${session.parentSessionId} at message ${session.forkPosition}` : null,
    ]
      .filter((line) => line !== null)
      .join("  \n"),
  ];
  const body = messages.map(messageMarkdown).filter((m) => m !== "");
  return `${[...header, ...body].join("\n\n")}\n`;
}
