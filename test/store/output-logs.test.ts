// The running calls' terminal logs (app/main/store/output-logs.ts): every log that changed is
// written in one transaction per flush, and a failure leaves none of that flush counted as stored.
import fs from "node:fs";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { openStore, type SessionStore } from "../../app/main/store/index.ts";
import { OutputLogs } from "../../app/main/store/output-logs.ts";
import { StoreError } from "../../app/main/store/errors.ts";
import { tempDir } from "./helpers.ts";

let dir: string;
let store: SessionStore;
let sessionId: number;
beforeEach(() => {
  dir = tempDir();
  store = openStore({ dataDir: dir }).store;
  sessionId = store.createSession({ projectId: store.openProject("/p").id }).id;
});
afterEach(() => {
  store.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

const stored = () => store.db.prepare("SELECT tool_call_id, head FROM tool_output ORDER BY tool_call_id").raw().all();

describe("OutputLogs.write", () => {
  it("writes every changed log in one transaction", () => {
    const inTransaction: boolean[] = [];
    const logs = new OutputLogs(store.db, sessionId, (text) => (inTransaction.push(store.db.inTransaction), text));
    for (const id of ["a", "b", "c"]) logs.note(id, { chunk: `output of ${id}\n` });
    expect(logs.write()).toBe(3);
    expect(inTransaction.length).toBeGreaterThanOrEqual(3);
    expect(inTransaction.every(Boolean)).toBe(true);
    expect(stored()).toEqual([
      ["a", "output of a\n"],
      ["b", "output of b\n"],
      ["c", "output of c\n"],
    ]);
    // Nothing changed: nothing written.
    expect(logs.write()).toBe(0);
    logs.note("b", { chunk: "more\n" });
    expect(logs.write()).toBe(1);
    expect(stored()[1]).toEqual(["b", "output of b\nmore\n"]);
  });

  it("a failure stores nothing of that flush, and the next write stores every log", () => {
    let failOn: string | null = "output of b\n";
    const logs = new OutputLogs(store.db, sessionId, (text) => {
      if (text === failOn) throw new Error("redaction failed");
      return text;
    });
    for (const id of ["a", "b"]) logs.note(id, { chunk: `output of ${id}\n` });
    expect(() => logs.write()).toThrow(StoreError);
    expect(stored()).toEqual([]);
    expect(logs.allWritten).toBe(false);
    failOn = null;
    expect(logs.write()).toBe(2);
    expect(stored()).toEqual([
      ["a", "output of a\n"],
      ["b", "output of b\n"],
    ]);
    expect(logs.allWritten).toBe(true);
  });
});
