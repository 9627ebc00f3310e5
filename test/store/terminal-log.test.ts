// A tool call's bounded terminal log (app/main/store/terminal-log.ts) and its stored form
// (tool-output.ts): head and tail kept, what was left out counted and named in the replay.
import { describe, expect, it } from "vitest";
import type { SessionStore } from "../../app/main/store/index.ts";
import { joinLog, TerminalLog } from "../../app/main/store/terminal-log.ts";
import { copyToolOutputs, listToolOutputs, readToolOutput, toolOutputsOf, writeToolOutput } from "../../app/main/store/tool-output.ts";
import { freshStoreForEachTest } from "./support/fresh-store.ts";

const MARK = (what: string) => `\r\n\x1b[0m\x1b[2m[… ${what} …]\x1b[0m\r\n`;

describe("TerminalLog", () => {
  it("keeps everything while it fits in the head and tail", () => {
    const log = new TerminalLog(4, 6);
    expect(log.headFull).toBe(false);
    log.append("");
    expect(log.version).toBe(0);
    log.append("abc");
    expect(log.headFull).toBe(false);
    log.append("defgh");
    expect(log.headFull).toBe(true);
    expect([log.head, log.tail, log.totalChars, log.version]).toEqual(["abcd", "efgh", 8, 2]);
    expect(log.text()).toBe("abcdefgh");
  });

  it("drops the middle, counts it, and starts the tail at a line start within 4096 characters", () => {
    const log = new TerminalLog(3, 8);
    log.append("HEAD");
    log.append("xxxxx");
    log.append("yy\nlast1");
    log.append("\nz");
    // Kept: head "HEA"; the tail's last 8 characters "\nlast1\nz", from after their first newline.
    expect(log.head).toBe("HEA");
    expect(log.tail).toBe("last1\nz");
    expect(log.totalChars).toBe(19);
    expect(log.text()).toBe(`HEA${MARK("9 characters of output in the middle were not kept")}last1\nz`);
  });

  it("keeps a tail without a newline whole, and counts skipped characters apart", () => {
    const log = new TerminalLog(2, 4);
    log.append("ab");
    log.append("0123456789");
    log.skip(0);
    log.skip(-3);
    expect(log.version).toBe(2);
    log.skip(5);
    expect([log.skippedChars, log.version]).toEqual([5, 3]);
    expect(log.tail).toBe("6789");
    expect(log.text()).toBe(`ab${MARK("6 characters of output in the middle were not kept; 5 characters were skipped while the view caught up")}6789`);
  });

  it("a newline far into the tail is not searched for", () => {
    const log = new TerminalLog(1, 5000);
    log.append("h");
    log.append("-".repeat(100));
    log.append(`${"a".repeat(4096)}\n${"b".repeat(903)}`);
    expect(log.tail).toHaveLength(5000);
    expect(log.tail.startsWith("a")).toBe(true);
  });

  it("only the tail's whole chunks are dropped: the newest chunk stays even when it alone is longer than the tail", () => {
    const log = new TerminalLog(0, 3);
    log.append("12");
    log.append("34");
    log.append("56789");
    expect(log.tail).toBe("789");
    expect(log.totalChars).toBe(9);
  });

  it("a tail after a full head keeps its first line when nothing was dropped", () => {
    const log = new TerminalLog(2, 100);
    log.append("xyab\ncd");
    expect([log.head, log.tail]).toEqual(["xy", "ab\ncd"]);
    expect(log.text()).toBe("xyab\ncd");
  });

  it("a log without a tail keeps the head and counts the rest", () => {
    const log = new TerminalLog(4, 0);
    log.append("abcdefgh");
    log.append("ij");
    expect([log.head, log.tail, log.totalChars]).toEqual(["abcd", "", 10]);
    expect(log.text()).toBe(`abcd${MARK("6 characters of output in the middle were not kept")}`);
  });

  it("joinLog names only what is missing", () => {
    expect(joinLog("h", "t", 2, 2)).toBe(`h${MARK("2 characters of output in the middle were not kept; 2 characters were skipped while the view caught up")}t`);
    expect(joinLog("h", "t", 0, 0)).toBe("ht");
    expect(joinLog("h", "t", 0, 2)).toBe(`h${MARK("2 characters were skipped while the view caught up")}t`);
    expect(joinLog("h", "t", 3, 0)).toBe(`h${MARK("3 characters of output in the middle were not kept")}t`);
  });
});

describe("stored terminal logs", () => {
  let store: SessionStore;
  let a: number;
  let b: number;
  freshStoreForEachTest((opened) => {
    store = opened;
    const project = store.openProject("/p");
    a = store.createSession({ projectId: project.id }).id;
    b = store.createSession({ projectId: project.id }).id;
  });

  it("writes, rewrites, lists, reads and copies a call's log", () => {
    writeToolOutput(store.db, a, "c1", { head: "H", tail: "T", totalChars: 2, omittedChars: 0, skippedChars: 0 }, 1);
    writeToolOutput(store.db, a, "c2", { head: "h", tail: "t", totalChars: 50, omittedChars: 40, skippedChars: 8 }, 2);
    expect(readToolOutput(store.db, a, "c1")).toEqual({ toolCallId: "c1", text: "HT", totalChars: 2, truncated: false });
    writeToolOutput(store.db, a, "c1", { head: "H2", tail: "", totalChars: 2, omittedChars: 0, skippedChars: 1 }, 3);
    expect(readToolOutput(store.db, a, "c1")).toMatchObject({ totalChars: 2, truncated: true });
    expect(readToolOutput(store.db, a, "c2")!.text).toBe(joinLog("h", "t", 40, 8));
    expect(readToolOutput(store.db, a, "none")).toBeUndefined();
    expect(readToolOutput(store.db, b, "c1")).toBeUndefined();
    expect(listToolOutputs(store.db, a)).toEqual([
      { toolCallId: "c1", totalChars: 2 },
      { toolCallId: "c2", totalChars: 50 },
    ]);
    expect(toolOutputsOf(store.db, a, ["c2", "none", "c1"])).toEqual([
      { toolCallId: "c2", totalChars: 50 },
      { toolCallId: "c1", totalChars: 2 },
    ]);
    writeToolOutput(store.db, b, "c2", { head: "mine", tail: "", totalChars: 4, omittedChars: 0, skippedChars: 0 }, 4);
    copyToolOutputs(store.db, a, b, ["c1", "c2"]);
    expect(readToolOutput(store.db, b, "c1")).toEqual(readToolOutput(store.db, a, "c1"));
    expect(readToolOutput(store.db, b, "c2")!.text).toBe("mine");
    expect(listToolOutputs(store.db, b)).toHaveLength(2);
  });
});
