// openStore's notice about runs a crash cut short (app/main/store/index.ts): how many sessions,
// how many unfinished tool calls were marked aborted, in words that agree in number.
import fs from "node:fs";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { openStore } from "../../app/main/store/index.ts";
import { assistant, call, tempDir, user } from "./helpers.ts";

let dir: string;
beforeEach(() => {
  dir = tempDir();
});
afterEach(() => {
  fs.rmSync(dir, { recursive: true, force: true });
});

/** Sessions whose runs were left running, each ending with an assistant message with `calls[i]` unanswered calls. */
function crashedWith(calls: number[]): number[] {
  const { store } = openStore({ dataDir: dir });
  const projectId = store.openProject("/p").id;
  const ids = calls.map((n) => {
    const id = store.createSession({ projectId }).id;
    store.appendMessages(id, [
      user("go"),
      assistant(
        "working",
        Array.from({ length: n }, (_, i) => call(`c${id}-${i}`, "read")),
      ),
    ]);
    store.db.prepare("INSERT INTO runs (session_id, started_at, status) VALUES (?, 1, 'running')").run(id);
    return id;
  });
  store.close();
  return ids;
}

describe("the interrupted-runs notice", () => {
  it("one session, one call", () => {
    const [id] = crashedWith([1]);
    const { store, notices } = openStore({ dataDir: dir });
    store.close();
    expect(notices).toEqual([
      {
        kind: "runs-interrupted",
        message: "1 session was interrupted when Lathe last stopped; 1 unfinished tool call was marked aborted.",
        sessionIds: [id],
        abortedToolResults: 1,
      },
    ]);
  });

  it("several sessions, several calls", () => {
    const ids = crashedWith([2, 1]);
    const { store, notices } = openStore({ dataDir: dir });
    store.close();
    expect(notices).toEqual([
      {
        kind: "runs-interrupted",
        message: "2 sessions were interrupted when Lathe last stopped; 3 unfinished tool calls were marked aborted.",
        sessionIds: ids,
        abortedToolResults: 3,
      },
    ]);
  });

  it("no unfinished calls: only the sessions are named; nothing interrupted: no notice", () => {
    const ids = crashedWith([0, 0]);
    const first = openStore({ dataDir: dir });
    first.store.close();
    expect(first.notices).toEqual([{ kind: "runs-interrupted", message: "2 sessions were interrupted when Lathe last stopped.", sessionIds: ids, abortedToolResults: 0 }]);
    const second = openStore({ dataDir: dir });
    second.store.close();
    expect(second.notices).toEqual([]);
  });
});

describe("openStore's other paths", () => {
  it("names the holder by the process title when no app name is given", () => {
    const { store } = openStore({ dataDir: dir });
    try {
      expect(() => openStore({ dataDir: dir })).toThrow(
        expect.objectContaining({ name: "FolderLockedError", message: expect.stringContaining(`a Lathe process (${process.title})`) }),
      );
    } finally {
      store.close();
    }
  });

  it("a repair that fails closes the store, releases the folder, and says what failed", () => {
    const [id] = crashedWith([1]);
    {
      const { store } = openStore({ dataDir: dir });
      // Leave a running run whose last assistant message cannot be read.
      store.db.prepare("INSERT INTO runs (session_id, started_at, status) VALUES (?, 1, 'running')").run(id);
      store.db.prepare("UPDATE messages SET data = '{not json' WHERE role = 'assistant'").run();
      store.close();
    }
    const failed = expect.objectContaining({ name: "StoreError", message: expect.stringMatching(/^finishing the runs interrupted when Lathe last stopped failed: /) });
    expect(() => openStore({ dataDir: dir })).toThrow(failed);
    // The folder was released: the next writer gets as far as the repair again, not "in use".
    expect(() => openStore({ dataDir: dir })).toThrow(failed);
  });
});
