// Test helpers for the loop: tools with controllable timing, an event recorder, and a one-call
// runner that plays a script through runAgentLoop.
import { Type, type TSchema } from "@sinclair/typebox";
import { setTimeout as delay } from "node:timers/promises";
import { runAgentLoop, defaultConvertToLlm, type AgentContext, type AgentLoopConfig, type AgentTool, type AnyAgentTool } from "../index.ts";
import type { AgentEvent, AgentMessage, AgentToolResult } from "../../../shared/agent-types.ts";
import { createScriptedModel, type ScriptStep } from "./scripted-model.ts";

export interface ExecutionRecord {
  id: string;
  name: string;
  start: number;
  end: number;
  signal: AbortSignal | undefined;
}

export interface TestToolOptions {
  delayMs?: number;
  /** Throws this message instead of returning. */
  fail?: string;
  /** Partial results sent through onUpdate before returning. */
  updates?: number;
  result?: Partial<AgentToolResult>;
  executionMode?: "parallel" | "sequential";
  parameters?: TSchema;
  prepareArguments?: (args: unknown) => unknown;
  /** Waits for abort instead of finishing (then throws "aborted"). */
  hangUntilAborted?: boolean;
  log?: ExecutionRecord[];
}

export function testTool(name: string, options: TestToolOptions = {}): AgentTool<TSchema, unknown> {
  return {
    name,
    label: name,
    description: `Test tool ${name}`,
    parameters: options.parameters ?? Type.Object({ value: Type.Optional(Type.String()) }),
    executionMode: options.executionMode,
    prepareArguments: options.prepareArguments,
    async execute(id, params, signal, onUpdate) {
      const record: ExecutionRecord = { id, name, start: performance.now(), end: 0, signal };
      options.log?.push(record);
      try {
        for (let i = 0; i < (options.updates ?? 0); i++) {
          onUpdate?.({ content: [{ type: "text", text: `update ${i}` }], details: { i } });
        }
        if (options.hangUntilAborted) {
          await new Promise<void>((_resolve, reject) => {
            if (signal?.aborted) reject(new Error("aborted"));
            signal?.addEventListener("abort", () => reject(new Error("aborted")), { once: true });
          });
        }
        if (options.delayMs) await delay(options.delayMs);
        if (options.fail) throw new Error(options.fail);
        return {
          content: [{ type: "text", text: `${name} done with ${JSON.stringify(params)}` }],
          details: { name },
          ...options.result,
        };
      } finally {
        record.end = performance.now();
      }
    },
  };
}

export function recorder(slowMs = 0): { events: AgentEvent[]; sink: (e: AgentEvent) => Promise<void> | void } {
  const events: AgentEvent[] = [];
  return {
    events,
    sink:
      slowMs > 0
        ? async (e) => {
            events.push(e);
            await delay(slowMs);
          }
        : (e) => void events.push(e),
  };
}

export const types = (events: AgentEvent[]): string[] => events.map((e) => e.type);

/** `tool_execution_*` events as "type:toolCallId" strings. */
export const toolEvents = (events: AgentEvent[], kind?: string): string[] =>
  events.filter((e) => e.type.startsWith("tool_execution") && (!kind || e.type === kind)).map((e) => `${e.type}:${(e as { toolCallId: string }).toolCallId}`);

export async function runScript(options: {
  steps: ScriptStep[];
  tools?: AnyAgentTool[];
  config?: Partial<AgentLoopConfig>;
  prompt?: string;
  signal?: AbortSignal;
  slowSubscriberMs?: number;
}) {
  const model = createScriptedModel(options.steps);
  const rec = recorder(options.slowSubscriberMs);
  const context: AgentContext = { systemPrompt: "You are a test.", messages: [], tools: options.tools ?? [] };
  const config: AgentLoopConfig = { model: model.model, convertToLlm: defaultConvertToLlm, ...options.config };
  const prompt: AgentMessage = { role: "user", content: options.prompt ?? "go", timestamp: Date.now() };
  const messages = await runAgentLoop([prompt], context, config, rec.sink, options.signal, model.streamFn);
  return { events: rec.events, messages, model };
}
