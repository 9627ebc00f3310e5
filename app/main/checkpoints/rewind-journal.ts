// The journal of a rewind in progress, so that a crash in the middle is finished at the next start
// (rewinder.ts recover()). Its plan has a step per file, maybe 100,000 of them: tens of MB of JSON,
// whose insertion into the checkpoint index held the main thread about half a second. So the plan
// goes to a file of its own in `checkpoints/journals/`, written and flushed to disk off the main
// thread, and the index gets a small row naming it, inserted only once the file is on disk; ending
// the journal deletes the row, then the file. A row written by an earlier version holds the plan
// itself and is read as such. Files no row names (a crash between the two writes, before any
// project file changed) are removed by sweep(). Errors of begin() are the caller's (the rewind does
// not start); read() and the rest never throw.
import { randomUUID } from "node:crypto";
import { mkdir, open, readdir, readFile, rm } from "node:fs/promises";
import { basename, join } from "node:path";
import type { CheckpointDb, JournalRow } from "./checkpoint-db.ts";
import type { RewindStep } from "./rewind-apply.ts";
import { mapInSlices } from "./slices.ts";

const PLAN_FILE = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\.json$/;

export interface JournalPlan {
  sessionId: number;
  projectId: number;
  projectDir: string;
  root: string;
  key: string;
  rewindId: number;
  steps: RewindStep[];
  targetDirs: string[];
}

export class RewindJournal {
  readonly #db: CheckpointDb;
  readonly #dir: string;

  /** `dir`: the folder of the plan files (checkpoints/journals). */
  constructor(db: CheckpointDb, dir: string) {
    this.#db = db;
    this.#dir = dir;
  }

  /** Writes the plan to disk and records it; returns the journal's id. */
  async begin(plan: JournalPlan): Promise<number> {
    await mkdir(this.#dir, { recursive: true, mode: 0o700 });
    const file = join(this.#dir, `${randomUUID()}.json`);
    const handle = await open(file, "wx", 0o600);
    try {
      await handle.writeFile(await planText(plan));
      await handle.sync();
    } finally {
      await handle.close();
    }
    const folder = await open(this.#dir, "r");
    await folder.sync().finally(() => folder.close());
    return this.#db.beginJournal(plan.projectId, JSON.stringify({ planFile: basename(file) }));
  }

  /** The plan of a journal row, or null when it cannot be read (then the row should end). */
  async read(row: JournalRow): Promise<JournalPlan | null> {
    try {
      const stored = JSON.parse(row.plan) as JournalPlan | { planFile: string };
      if (!("planFile" in stored)) return stored;
      const file = planFileOf(row.plan);
      return file ? (JSON.parse(await readFile(join(this.#dir, file), "utf8")) as JournalPlan) : null;
    } catch {
      return null;
    }
  }

  /** Ends a journal: its row, then its plan file. */
  async end(id: number): Promise<void> {
    const plan = this.#db.endJournal(id);
    const file = plan === undefined ? null : planFileOf(plan);
    if (file) await rm(join(this.#dir, file), { force: true }).catch(() => undefined);
  }

  /** Removes plan files that no journal row names. */
  async sweep(): Promise<void> {
    const named = new Set(this.#db.journals().map((row) => planFileOf(row.plan)));
    const files = await readdir(this.#dir).catch(() => [] as string[]);
    await Promise.all(files.filter((f) => !named.has(f)).map((f) => rm(join(this.#dir, f), { force: true }).catch(() => undefined)));
  }
}

/** The plan file a row's plan names: only a name begin() makes (a damaged index names nothing else to read or remove). */
function planFileOf(plan: string): string | null {
  try {
    const stored = JSON.parse(plan) as { planFile?: unknown };
    return typeof stored.planFile === "string" && PLAN_FILE.test(stored.planFile) ? stored.planFile : null;
  } catch {
    return null;
  }
}

/** JSON.stringify(plan), its steps written in slices. */
async function planText(plan: JournalPlan): Promise<string> {
  const { steps, ...rest } = plan;
  const parts = await mapInSlices(steps, (step) => JSON.stringify(step));
  return `${JSON.stringify(rest).slice(0, -1)},"steps":[${parts.join(",")}]}`;
}
