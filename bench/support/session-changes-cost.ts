// The checkpoints list of a stored session (checkpoints.list -> sessionChanges, as the window asks
// when it opens one from History) on a real store: two sessions of `messages` messages, each ending
// with two checkpointed turns; in one the turns' places were recorded (as this Lathe's live
// sessions do), in the other one turn was recorded without (an older Lathe's), so the whole
// transcript is read. Alternated, `rounds` each: milliseconds and main-thread CPU, median and minimum.
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { CheckpointService } from "../../app/main/checkpoints/checkpoint-service.ts";
import { openStore } from "../../app/main/store/index.ts";
import { type AgentMessage, type AssistantMessage, emptyUsage } from "../../app/shared/agent-types.ts";

const assistant = (content: AssistantMessage["content"], i: number): AgentMessage => ({
  role: "assistant",
  content,
  api: "openai-completions",
  provider: "local",
  model: "bench",
  usage: emptyUsage(),
  stopReason: "stop",
  timestamp: i,
});

export async function sessionChangesCost(messages: number, rounds: number) {
  const data = mkdtempSync(path.join(tmpdir(), "lathe-bench-list-data-"));
  const project = mkdtempSync(path.join(tmpdir(), "lathe-bench-list-project-"));
  writeFileSync(path.join(project, "a.txt"), "0\n");
  const { store } = openStore({ dataDir: data });
  const cp = new CheckpointService({ dataDir: data });
  try {
    const projectId = store.openProject(project).id;
    const session = async (placedTurns: boolean[]) => {
      const id = store.createSession({ projectId, model: "local/bench", title: "long" }).id;
      const batch: AgentMessage[] = [];
      for (let i = 0; i < messages; i++) {
        batch.push(i % 2 ? assistant([{ type: "text", text: `Answer ${i} about module ${i}.` }], i) : { role: "user", content: `Question ${i}`, timestamp: i });
        if (batch.length === 10_000 || i === messages - 1) store.appendMessages(id, batch.splice(0));
      }
      for (const [n, placed] of placedTurns.entries()) {
        store.appendMessage(id, { role: "user", content: `change ${n}`, timestamp: 0 });
        store.appendMessage(id, assistant([{ type: "toolCall", id: `call-${n}`, name: "bash", arguments: { command: "true" } }], 0));
        const count = store.getSession(id)!.messageCount;
        const scope = { sessionId: id, projectId, projectDir: project };
        const key = `${id}:call-${n}`;
        await cp.beforeTurn(scope, key, placed ? { position: count - 1, userPosition: count - 2 } : undefined);
        writeFileSync(path.join(project, "a.txt"), `${id}.${n}\n`);
        await cp.afterTurn(scope, key);
      }
      return id;
    };
    const placedId = await session([true, true]);
    const wholeId = await session([false, true]);
    const source = {
      place: () => ({ projectId, projectDir: project, lineage: { sessionId: 0, parents: [] } }),
      transcript: (id: number) => ({ messages: store.openSession(id)!.messages, projectId, projectDir: project, lineage: { sessionId: id, parents: [] } }),
      messageAt: (id: number, position: number) => store.readMessages(id, position, position + 1)[0],
    };
    const time = async (id: number) => {
      const cpu = process.threadCpuUsage();
      const started = performance.now();
      const turns = await cp.sessionChanges({ ...source, place: () => ({ ...source.place(), lineage: { sessionId: id, parents: [] } }) }, id);
      const used = process.threadCpuUsage(cpu);
      if (turns.length !== 2) throw new Error(`expected 2 turns, listed ${turns.length}`);
      return { ms: performance.now() - started, cpuMs: (used.user + used.system) / 1000 };
    };
    const placed: { ms: number; cpuMs: number }[] = [];
    const whole: { ms: number; cpuMs: number }[] = [];
    for (let r = 0; r < rounds; r++) {
      placed.push(await time(placedId));
      whole.push(await time(wholeId));
    }
    const median = (values: number[]) => [...values].sort((a, b) => a - b)[values.length >> 1]!;
    const figures = (runs: { ms: number; cpuMs: number }[]) => ({
      ms: +median(runs.map((r) => r.ms)).toFixed(2),
      minMs: +Math.min(...runs.map((r) => r.ms)).toFixed(2),
      cpuMs: +median(runs.map((r) => r.cpuMs)).toFixed(2),
    });
    return { messages, placed: figures(placed), wholeTranscript: figures(whole) };
  } finally {
    await cp.close();
    store.close();
    rmSync(data, { recursive: true, force: true });
    rmSync(project, { recursive: true, force: true });
  }
}
