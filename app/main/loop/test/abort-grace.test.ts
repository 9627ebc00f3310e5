// A tool after an abort: it gets `abortGraceMs` to stop (clamped to what a timer can wait), its
// own result counts if it stops in time, the abandoned call's reason is exact, the loop leaves
// no abort listener behind on the caller's signal, and what a throw carries reaches the result.
import { getEventListeners } from "node:events";
import { Type } from "@sinclair/typebox";
import { setTimeout as delay } from "node:timers/promises";
import { describe, expect, it } from "vitest";
import type { ToolResultMessage } from "../../../shared/agent-types.ts";
import type { AgentTool } from "../index.ts";
import { runScript, testTool } from "./loop-harness.ts";

/** Aborts the run itself, then takes `stopMs` to stop, ignoring the signal meanwhile. */
function slowToStop(controller: AbortController, stopMs: number, execute?: () => void): AgentTool {
  return {
    name: "slow",
    label: "slow",
    description: "stops late",
    parameters: Type.Object({}),
    async execute() {
      controller.abort();
      execute?.();
      await delay(stopMs);
      return { content: [{ type: "text", text: "stopped by itself" }], details: { own: true } };
    },
  };
}

const resultOf = (messages: readonly unknown[]) => (messages as ToolResultMessage[]).find((m) => m.role === "toolResult")!;
const textOf = (result: ToolResultMessage) => (result.content[0] as { text: string }).text;

describe("abort grace", () => {
  it.each([
    ["a grace longer than it takes", 5_000],
    ["an unbounded grace (clamped to the longest timer, not fired at once)", Number.POSITIVE_INFINITY],
  ])("%s: the tool's own result counts", async (_label, abortGraceMs) => {
    const controller = new AbortController();
    const { messages } = await runScript({
      steps: [{ toolCalls: [{ name: "slow", id: "c1" }] }, { text: "never" }],
      tools: [slowToStop(controller, 40)],
      config: { abortGraceMs },
      signal: controller.signal,
    });
    const result = resultOf(messages);
    expect(textOf(result)).toBe("stopped by itself");
    expect(result.isError).toBe(false);
  });

  it("a call that does not stop in time is abandoned with the exact reason", async () => {
    const controller = new AbortController();
    const { messages } = await runScript({
      steps: [{ toolCalls: [{ name: "slow", id: "c1" }] }, { text: "never" }],
      tools: [slowToStop(controller, 300)],
      config: { abortGraceMs: 20 },
      signal: controller.signal,
    });
    const result = resultOf(messages);
    expect(result.isError).toBe(true);
    expect(textOf(result)).toBe("Aborted: slow did not stop within 20 ms of the abort, so the call was abandoned; anything it returns later is discarded.");
  });

  it("a negative grace abandons at once", async () => {
    const controller = new AbortController();
    const { messages } = await runScript({
      steps: [{ toolCalls: [{ name: "slow", id: "c1" }] }, { text: "never" }],
      tools: [slowToStop(controller, 200)],
      config: { abortGraceMs: -5 },
      signal: controller.signal,
    });
    expect(textOf(resultOf(messages))).toMatch(/^Aborted: slow did not stop within -5 ms/);
  });

  it("leaves no abort listener of its own on the caller's signal once calls have settled", async () => {
    const controller = new AbortController();
    const before = getEventListeners(controller.signal, "abort").length;
    let during = 0;
    const counting = testTool("count", { delayMs: 5 });
    const execute = counting.execute.bind(counting);
    counting.execute = (...args) => {
      during = getEventListeners(controller.signal, "abort").length;
      return execute(...args);
    };
    await runScript({
      steps: [
        {
          toolCalls: [
            { name: "count", id: "c1" },
            { name: "count", id: "c2" },
          ],
        },
        { text: "done" },
      ],
      tools: [counting],
      signal: controller.signal,
    });
    expect(during).toBeGreaterThan(before);
    expect(getEventListeners(controller.signal, "abort").length).toBe(before);
  });
});

describe("what a throw carries", () => {
  const thrower = (value: unknown): AgentTool => ({
    name: "throws",
    label: "throws",
    description: "throws",
    parameters: Type.Object({}),
    execute: () => Promise.reject(value),
  });
  const run = async (value: unknown) => resultOf((await runScript({ steps: [{ toolCalls: [{ name: "throws", id: "c1" }] }, { text: "ok" }], tools: [thrower(value)] })).messages);

  it("an error's details reach the result; a throw without any keeps the default", async () => {
    expect((await run(Object.assign(new Error("exit 2"), { details: { exitCode: 2 } }))).details).toEqual({ exitCode: 2 });
    expect((await run({ message: "denied", details: ["d"] })).details).toEqual(["d"]);
    expect((await run(new Error("plain"))).details).toEqual({});
    // Whatever the thrown value is: a function's details too (docs/agent-loop.md: "a details property
    // on the thrown value"); a primitive has none.
    expect((await run(Object.assign(() => {}, { details: { exitCode: 3 } }))).details).toEqual({ exitCode: 3 });
    expect((await run("text")).details).toEqual({});
  });

  it("null, a string or an object whose details getter throws: an error result, never a crash", async () => {
    for (const value of [null, undefined, "text", 7]) expect((await run(value)).isError).toBe(true);
    const hostile = {
      get details(): unknown {
        throw new Error("no");
      },
      message: "hostile",
    };
    const result = await run(hostile);
    expect(result).toMatchObject({ isError: true, details: {} });
    expect(textOf(result)).toContain("hostile");
  });
});
