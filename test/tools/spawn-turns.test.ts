// Process starts, one per turn of the event loop (app/main/tools/spawn-turns.ts): starting a
// terminal blocks the main thread (node-pty forks the process), so parallel bash calls must not
// all start in one turn.
import { afterAll, expect, it, vi } from "vitest";
import type * as PtySpawn from "../../app/main/tools/pty-spawn.ts";
import { needsLinux, itWhen } from "../support/requirements.ts";
import { tempDir } from "./helpers.ts";

/** A counter of event-loop turns: increased by a chain of immediates while `counting`. */
const turns = vi.hoisted(() => ({ now: 0, spawnedAt: [] as number[] }));
vi.mock("../../app/main/tools/pty-spawn.ts", async (importOriginal) => {
  const real = await importOriginal<typeof PtySpawn>();
  return {
    ...real,
    spawnTerminal: (...args: Parameters<typeof real.spawnTerminal>) => {
      turns.spawnedAt.push(turns.now);
      return real.spawnTerminal(...args);
    },
  };
});

const { nextStartTurn } = await import("../../app/main/tools/spawn-turns.ts");
const { createBashTool } = await import("../../app/main/tools/bash.ts");

const project = tempDir();
const outputs = tempDir("lathe-spawn-turns-");
afterAll(() => {
  project.cleanup();
  outputs.cleanup();
});

/** Counts turns of the event loop until `stop()`. */
function countTurns(): { stop(): void } {
  let on = true;
  const tick = () => {
    turns.now++;
    if (on) setImmediate(tick);
  };
  setImmediate(tick);
  return { stop: () => (on = false) };
}

it("each call resolves in a later turn than the one before, also when all are made in one turn", async () => {
  const counter = countTurns();
  const seen = await Promise.all([1, 2, 3, 4].map(() => nextStartTurn().then(() => turns.now)));
  counter.stop();
  for (let i = 1; i < seen.length; i++) expect(seen[i]).toBeGreaterThan(seen[i - 1]!);
});

itWhen(needsLinux(), "four parallel bash calls start their terminals in four different turns", async () => {
  const bash = createBashTool({ projectDir: project.dir, outputDir: outputs.dir });
  turns.spawnedAt.length = 0;
  const counter = countTurns();
  const results = await Promise.all([1, 2, 3, 4].map((n) => bash.execute(`call-${n}`, { command: `echo ${n}` }, undefined, () => undefined)));
  counter.stop();
  expect(results.map((r) => (r.content[0] as { text: string }).text.split("\n")[0])).toEqual(["1", "2", "3", "4"]);
  expect(turns.spawnedAt).toHaveLength(4);
  expect(new Set(turns.spawnedAt).size).toBe(4);
});
