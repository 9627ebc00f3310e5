// The running calls' terminal logs (app/main/store/output-logs.ts): every log that changed is
// written in one transaction per flush, and a failure leaves none of that flush counted as stored.
import fs from "node:fs";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { openStore, type SessionStore } from "../../app/main/store/index.ts";
import { OutputLogs } from "../../app/main/store/output-logs.ts";
import { StoreError } from "../../app/main/store/errors.ts";
import { TERMINAL_LOG_HEAD_CHARS } from "../../app/main/store/terminal-log.ts";
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

describe("OutputLogs' bookkeeping", () => {
  it("notes only details that are an object with a string chunk", () => {
    const logs = new OutputLogs(store.db, sessionId, (text) => text);
    const noOutput = [undefined, null, "chunk", 7, {}, { chunk: 7 }, Object.assign(() => {}, { chunk: "a function" })];
    for (const details of noOutput) expect(logs.note("c1", details)).toBe(false);
    expect(logs.has("c1")).toBe(false);
    expect(logs.get("c1")).toBeUndefined();
    expect(logs.note("c1", { chunk: "out\n", skippedBytes: 3 })).toBe(true);
    expect(logs.has("c1")).toBe(true);
    expect(logs.get("c1")?.text()).toContain("out\n");
    expect(logs.get("c1")?.skippedChars).toBe(3);
  });

  it("drops a done call's log from memory once it is stored, not before", () => {
    const logs = new OutputLogs(store.db, sessionId, (text) => text);
    logs.done("unknown");
    logs.note("a", { chunk: "a\n" });
    logs.write();
    logs.done("a");
    expect(logs.has("a")).toBe(false);
    logs.note("b", { chunk: "b\n" });
    logs.done("b");
    expect(logs.has("b")).toBe(true);
    expect(logs.write()).toBe(1);
    expect(logs.has("b")).toBe(false);
    expect(stored()).toEqual([
      ["a", "a\n"],
      ["b", "b\n"],
    ]);
  });

  it("redacts a full head once, and stores what was omitted between head and tail", () => {
    const redacted: number[] = [];
    const logs = new OutputLogs(store.db, sessionId, (text) => (redacted.push(text.length), text));
    const head = "h".repeat(TERMINAL_LOG_HEAD_CHARS);
    logs.note("c1", { chunk: `${head}tail one\n` });
    expect(logs.write()).toBe(1);
    expect(redacted).toEqual([TERMINAL_LOG_HEAD_CHARS, "tail one\n".length]);
    logs.note("c1", { chunk: "tail two\n" });
    expect(logs.write()).toBe(1);
    expect(redacted).toEqual([TERMINAL_LOG_HEAD_CHARS, "tail one\n".length, "tail one\ntail two\n".length]);
    const row = store.db.prepare("SELECT tail, total_chars AS total, omitted_chars AS omitted FROM tool_output").get();
    expect(row).toEqual({ tail: "tail one\ntail two\n", total: TERMINAL_LOG_HEAD_CHARS + 18, omitted: 0 });
  });

  it("reports a head whose redaction failed as a failed write", () => {
    const logs = new OutputLogs(store.db, sessionId, (text) => {
      if (text.length === TERMINAL_LOG_HEAD_CHARS) throw new Error("redaction failed");
      return text;
    });
    logs.note("c1", { chunk: "h".repeat(TERMINAL_LOG_HEAD_CHARS + 1) });
    expect(() => logs.write()).toThrow("saving a command's terminal output failed: redaction failed");
    expect(logs.allWritten).toBe(false);
  });

  it("drops a log that can never be stored (its session is gone) without failing the others", () => {
    const gone = store.createSession({ projectId: store.openProject("/gone").id }).id;
    const logs = new OutputLogs(store.db, gone, (text) => text);
    logs.note("c1", { chunk: "lost\n" });
    store.db.prepare("DELETE FROM sessions WHERE id = ?").run(gone);
    expect(logs.write()).toBe(0);
    expect(logs.allWritten).toBe(true);
    expect(stored()).toEqual([]);
  });
});
