// A model server on 127.0.0.1 speaking the OpenAI Chat Completions protocol (what local servers
// such as Ollama or vLLM speak), scripted by conversation: the reply depends on the latest user
// message and on how many tool results follow it, so one server drives every e2e scenario.
// GET /v1/models lists one model for discovery. `failNext` makes the next chat request fail (e.g.
// 429 with retry-after) before the brain is asked. Built on the providers' scripted SSE server.
import { chunk, completionsText, pieces, usageChunk } from "../../providers/support/conversation.ts";
import { sseData, startServer, type RecordedRequest, type ScriptedReply, type TestServer } from "../../providers/support/sse-server.ts";

export const MODEL_ID = "fake-coder";

type ChatMessage = { role: string; content?: unknown; tool_calls?: unknown[] };

export interface Call {
  name: string;
  args: Record<string, unknown>;
}

/** What the model does next: call tools, or answer in text (after `pauseMs` of silence, if set). */
export type Step = { calls: Call[] } | { text: string; pauseMs?: number; thinking?: string };

/** Chooses the next step from the latest user text, the tool results since, and the whole request. */
export type Brain = (userText: string, toolResults: string[], messages: ChatMessage[]) => Step;

function textOf(content: unknown): string {
  if (typeof content === "string") return content;
  if (Array.isArray(content)) return content.map((p: { text?: string }) => p.text ?? "").join("");
  return "";
}

function toolCallsReply(calls: Call[], turn: number): string {
  let out = chunk({ role: "assistant", content: "" });
  for (const piece of pieces("Let me do that.", 3)) out += chunk({ content: piece });
  calls.forEach((call, i) => {
    out += chunk({ tool_calls: [{ index: i, id: `call_${turn}_${i}`, type: "function", function: { name: call.name, arguments: "" } }] });
    for (const piece of pieces(JSON.stringify(call.args), 3)) out += chunk({ tool_calls: [{ index: i, function: { arguments: piece } }] });
  });
  out += chunk({}, "tool_calls");
  out += usageChunk(1200, 0, 40);
  return out + sseData("[DONE]");
}

/** Reasoning (reasoning_content deltas, as local servers send it), then the answer. */
function thinkingThenText(thinking: string, text: string): string {
  let out = chunk({ role: "assistant", content: "" });
  for (const piece of pieces(thinking, Math.max(1, Math.ceil(thinking.length / 8)))) out += chunk({ reasoning_content: piece });
  for (const piece of pieces(text, 3)) out += chunk({ content: piece });
  out += chunk({}, "stop");
  out += usageChunk(900, 0, 60);
  return out + sseData("[DONE]");
}

export type FakeModel = TestServer & {
  chatRequests: () => RecordedRequest[];
  /** The next chat request gets this error reply instead of an answer. */
  failNext: (status: number, headers?: Record<string, string>) => void;
};

export async function startFakeModel(brain: Brain): Promise<FakeModel> {
  let turn = 0;
  const failures: ScriptedReply[] = [];
  const server = await startServer((request): ScriptedReply => {
    if (request.method === "GET" && request.path.endsWith("/models")) {
      return {
        status: 200,
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ object: "list", data: [{ id: MODEL_ID, object: "model", context_length: 32768 }] }),
      };
    }
    if (!request.path.endsWith("/chat/completions")) return { status: 404, headers: { "content-type": "application/json" }, body: '{"error":{"message":"not found"}}' };
    const failure = failures.shift();
    if (failure) return failure;
    const messages = ((request.body as { messages?: ChatMessage[] })?.messages ?? []) as ChatMessage[];
    let lastUser = -1;
    messages.forEach((m, i) => {
      if (m.role === "user") lastUser = i;
    });
    const userText = lastUser >= 0 ? textOf(messages[lastUser]!.content) : "";
    const toolResults = messages
      .slice(lastUser + 1)
      .filter((m) => m.role === "tool")
      .map((m) => textOf(m.content));
    const step = brain(userText, toolResults, messages);
    turn++;
    // Small pieces with a delay: the renderer sees the text stream in.
    if ("text" in step && step.pauseMs) return { body: completionsText(step.text), delayMs: step.pauseMs };
    if ("text" in step && step.thinking) return { body: thinkingThenText(step.thinking, step.text), chunkSize: 400, delayMs: 40 };
    if ("text" in step) return { body: completionsText(step.text), chunkSize: 64, delayMs: 15 };
    return { body: toolCallsReply(step.calls, turn), chunkSize: 96, delayMs: 10 };
  }, "/v1");
  return {
    ...server,
    chatRequests: () => server.requests.filter((r) => r.path.endsWith("/chat/completions")),
    failNext: (status, headers = {}) => {
      failures.push({
        status,
        headers: { "content-type": "application/json", ...headers },
        body: JSON.stringify({ error: { message: `scripted failure ${status}`, type: "rate_limit_error" } }),
      });
    },
  };
}
