// Session export (app/main/store/export.ts), pure: the whole Markdown of a small session, read as
// a person would (prompts, answers, thinking, tool calls and results, images, errors, custom
// entries), and the JSON envelope.
import { describe, expect, it } from "vitest";
import type { AgentMessage, AssistantMessage } from "../../app/shared/agent-types.ts";
import { sessionToJson, sessionToMarkdown } from "../../app/main/store/export.ts";
import type { OpenedSession, SessionInfo } from "../../app/main/store/store-types.ts";
import { assistant, call } from "./helpers.ts";

const T = Date.UTC(2026, 0, 2, 3, 4, 5, 678);

const session: SessionInfo = {
  id: 3,
  projectId: 1,
  title: "Fix it",
  createdAt: T,
  updatedAt: T,
  model: "anthropic/claude-test",
  baseToolNames: ["read"],
  parentSessionId: 2,
  forkPosition: 5,
  messageCount: 6,
  tokens: 1234,
  cost: 0.12345,
  archivedAt: null,
};

function opened(messages: AgentMessage[], over: Partial<SessionInfo> = {}): OpenedSession {
  return { session: { ...session, ...over }, messages, activeToolNames: messages.map(() => ["read"]), runs: [], events: [], toolCalls: [], outputs: [] };
}

const answer: AssistantMessage = {
  ...assistant("", [call("c1", "read", { path: "a`b" })]),
  content: [
    { type: "thinking", thinking: "line one\nline two" },
    { type: "thinking", thinking: "secret", redacted: true },
    { type: "text", text: "Reading it" },
    { type: "text", text: "" },
    call("c1", "read", { path: "a`b" }),
  ],
  timestamp: T,
  stopReason: "error",
  errorMessage: "overloaded",
};

const messages: AgentMessage[] = [
  { role: "user", content: "Please fix it", timestamp: T },
  {
    role: "user",
    content: [
      { type: "text", text: "look:" },
      { type: "image", data: "AAAA", mimeType: "image/png" },
    ],
    timestamp: Number.NaN,
  },
  answer,
  {
    role: "toolResult",
    toolCallId: "c1",
    toolName: "read",
    content: [
      { type: "text", text: "has ``` and ````` inside" },
      { type: "image", data: "BB", mimeType: "image/jpeg" },
    ],
    details: {},
    isError: true,
    timestamp: T,
  },
  { ...assistant("Stopped here"), content: [{ type: "text", text: "Stopped here" }], stopReason: "aborted", timestamp: T },
  { role: "custom", customType: "compaction", content: "the summary", display: true, timestamp: T },
  { role: "custom", customType: "hidden_note", content: "not shown", display: false, timestamp: T },
];

describe("Markdown export", () => {
  it("reads as the conversation did", () => {
    const md = sessionToMarkdown(opened(messages), { id: 1, folder: "/work/app", name: "app", createdAt: T, lastOpenedAt: T });
    expect(md).toBe(
      [
        "# Fix it",
        "Project: app (`/work/app`)  \nCreated: 2026-01-02 03:04:05 UTC  \nModel: anthropic/claude-test  \nMessages: 6  \nTokens: 1234  \nCost: $0.1235  \nForked from session 2 at message 5",
        "## User · 2026-01-02 03:04:05 UTC",
        "Please fix it",
        "## User · ",
        "look:",
        "*[image: image/png]*",
        "## Assistant · anthropic/claude-test · 2026-01-02 03:04:05 UTC",
        "> line one\n> line two",
        "> *[redacted thinking]*",
        "Reading it",
        '**Tool call** `read` (c1)\n\n```json\n{\n  "path": "a`b"\n}\n```',
        "*[error: overloaded]*",
        "### Tool result `read` (c1) · error",
        "``````\nhas ``` and ````` inside\n``````",
        "*[image: image/jpeg]*",
        "## Assistant · anthropic/claude-test · 2026-01-02 03:04:05 UTC",
        "Stopped here",
        "*[aborted]*",
        "*compaction:* the summary",
      ].join("\n\n") + "\n",
    );
  });

  it("a tool result that is not an error has a plain heading", () => {
    const ok: AgentMessage = { role: "toolResult", toolCallId: "c2", toolName: "bash", content: [{ type: "text", text: "done" }], details: {}, isError: false, timestamp: T };
    expect(sessionToMarkdown(opened([ok]), undefined)).toContain("\n\n### Tool result `bash` (c2)\n\n```\ndone\n```\n");
  });

  it("an untitled session without a project, model or parent says only what it has", () => {
    const done: AssistantMessage = { ...assistant("ok"), content: [{ type: "text", text: "ok" }], stopReason: "stop", timestamp: T };
    const md = sessionToMarkdown(opened([done], { title: null, model: null, parentSessionId: null, forkPosition: null, cost: 0, tokens: 0, messageCount: 1 }), undefined);
    expect(md).toBe(
      "# Untitled session\n\nCreated: 2026-01-02 03:04:05 UTC  \nMessages: 1  \nTokens: 0  \nCost: $0.0000\n\n## Assistant · anthropic/claude-test · 2026-01-02 03:04:05 UTC\n\nok\n",
    );
  });
});

describe("JSON export", () => {
  it("carries everything, stamped with the export time", () => {
    const o = opened(messages);
    const before = Date.now();
    const json = sessionToJson(o, undefined);
    expect(json).toEqual({
      format: "lathe-session",
      version: 2,
      exportedAt: expect.any(String),
      project: null,
      session: o.session,
      messages,
      activeToolNames: o.activeToolNames,
      runs: [],
      toolCalls: [],
      events: [],
    });
    expect(Date.parse(json.exportedAt)).toBeGreaterThanOrEqual(before - 1);
    expect(Date.parse(json.exportedAt)).toBeLessThanOrEqual(Date.now());
  });
});
