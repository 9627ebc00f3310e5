// Pure parts of the store: how SQLite and file-system failures become StoreErrors with plain
// messages (errors.ts), and the text of a message as search and titles see it (message-text.ts).
import { describe, expect, it } from "vitest";
import { isCorruptionError, NewerDatabaseError, StoreError, toStoreError } from "../../app/main/store/errors.ts";
import { contentText, MAX_INDEXED_CHARS, searchableTextOfJson, titleFromPrompt } from "../../app/main/store/message-text.ts";
import { assistant, user } from "./helpers.ts";

const failure = (code: unknown, message = "the detail") => Object.assign(new Error(message), { code });

describe("toStoreError", () => {
  it("names each kind of failure in plain words, keeping the cause", () => {
    const cases: [unknown, string, string][] = [
      ["SQLITE_FULL", "disk-full", "The disk is full: saving x failed and nothing of it was written."],
      ["ENOSPC", "disk-full", "The disk is full: saving x failed and nothing of it was written."],
      ["SQLITE_READONLY_DBMOVED", "read-only", "The data folder is read-only: saving x failed and nothing of it was written (the detail)."],
      ["EROFS", "read-only", "The data folder is read-only: saving x failed and nothing of it was written (the detail)."],
      ["EACCES", "read-only", "The data folder is read-only: saving x failed and nothing of it was written (the detail)."],
      ["EPERM", "read-only", "The data folder is read-only: saving x failed and nothing of it was written (the detail)."],
      ["SQLITE_CANTOPEN_ISDIR", "unavailable", "The session database cannot be opened: saving x failed (the detail)."],
      ["SQLITE_NOTADB", "corrupt", "The session database is damaged: saving x failed (the detail)."],
      ["SQLITE_CORRUPT_INDEX", "corrupt", "The session database is damaged: saving x failed (the detail)."],
      ["SQLITE_CONSTRAINT_CHECK", "invalid", "saving x failed: the detail"],
      ["SQLITE_IOERR_WRITE", "io", "A disk error stopped saving x; nothing of it was written (the detail)."],
      ["SQLITE_BUSY", "io", "saving x failed: the detail"],
      [42, "io", "saving x failed: the detail"],
    ];
    for (const [code, kind, message] of cases) {
      const cause = failure(code);
      const error = toStoreError(cause, "saving x");
      expect([code, error.failure, error.message]).toEqual([code, kind, message]);
      expect(error).toBeInstanceOf(StoreError);
      expect(error.name).toBe("StoreError");
      expect(error.cause).toBe(cause);
    }
  });

  it("passes a StoreError through and describes a thrown non-error", () => {
    const original = new StoreError("not-found", "gone");
    expect(toStoreError(original, "anything")).toBe(original);
    expect(toStoreError("just a string", "reading")).toMatchObject({ failure: "io", message: "reading failed: just a string" });
    expect(toStoreError(null, "reading").message).toBe("reading failed: null");
  });

  it("knows corruption by SQLite's codes only", () => {
    expect(isCorruptionError(failure("SQLITE_CORRUPT"))).toBe(true);
    expect(isCorruptionError(failure("SQLITE_NOTADB"))).toBe(true);
    expect(isCorruptionError(failure("SQLITE_FULL"))).toBe(false);
    expect(isCorruptionError(failure("XSQLITE_CORRUPT"))).toBe(false);
    expect(isCorruptionError(null)).toBe(false);
    expect(isCorruptionError(new Error("SQLITE_CORRUPT"))).toBe(false);
  });

  it("a newer database's error says which versions, and that the file was not changed", () => {
    const error = new NewerDatabaseError("/data/lathe.db", 9, 7);
    expect(error).toBeInstanceOf(StoreError);
    expect(error).toMatchObject({ name: "NewerDatabaseError", failure: "invalid", path: "/data/lathe.db", fileVersion: 9, supportedVersion: 7 });
    expect(error.message).toBe(
      "The session database /data/lathe.db was written by a newer version of Lathe (schema version 9; this version understands up to 7). Update Lathe to open it; the file was not changed.",
    );
  });
});

describe("message text", () => {
  it("joins the text blocks of a content list; a string is its own text; anything else has none", () => {
    expect(contentText("plain")).toBe("plain");
    expect(
      contentText([
        { type: "text", text: "one" },
        { type: "image", data: "xx", mimeType: "image/png" },
        { type: "text", text: 5 },
        null,
        "loose string",
        { type: "thinking", text: "hidden" },
        { type: "text", text: "two" },
      ]),
    ).toBe("one\ntwo");
    expect(contentText(undefined)).toBe("");
    expect(contentText({ type: "text", text: "not a list" })).toBe("");
  });

  it("the SQL function reads stored JSON: null when there is no text or the JSON is not readable", () => {
    expect(searchableTextOfJson(JSON.stringify(assistant("visible")))).toBe("visible");
    expect(searchableTextOfJson(JSON.stringify({ content: [] }))).toBeNull();
    expect(searchableTextOfJson("{not json")).toBeNull();
    expect(searchableTextOfJson(7)).toBeNull();
    expect(searchableTextOfJson("null")).toBeNull();
    // A blob (SQLite hands it over as a Buffer) is no stored message, even one holding JSON.
    expect(searchableTextOfJson(Buffer.from(JSON.stringify(assistant("in a blob"))))).toBeNull();
  });

  it("capped (the SQL function's second argument 1), a long text is indexed up to its last blank before the bound", () => {
    const indexed = (text: string, capped: unknown = 1) => searchableTextOfJson(JSON.stringify(user(text)), capped);
    const max = MAX_INDEXED_CHARS;
    // At the bound exactly: whole, blanks and all.
    const atBound = `${"w ".repeat(max / 2 - 1)}ab`;
    expect(atBound.length).toBe(max);
    expect(indexed(atBound)).toBe(atBound);
    // Past it: cut at the last blank of the bound's final 256 characters (the blank left out)...
    expect(indexed(`${"a".repeat(max - 100)} ${"b".repeat(200)}`)).toBe("a".repeat(max - 100));
    // ...the first of them included...
    expect(indexed(`${"a".repeat(max - 256)} ${"b".repeat(300)}`)).toBe("a".repeat(max - 256));
    // ...and with none there, at the bound, never between the halves of a surrogate pair.
    expect(indexed("c".repeat(max + 10))).toBe("c".repeat(max));
    expect(indexed(`${"d".repeat(max - 1)}😀${"e".repeat(10)}`)).toBe("d".repeat(max - 1));
    // A blank earlier than the final 256 characters does not count.
    expect(indexed(`f ${"g".repeat(max + 10)}`)).toBe(`f ${"g".repeat(max - 2)}`);
    // Not capped (0, or a message indexed before schema 10): whole; SQLite's 1 may come as a bigint.
    const long = `${"h".repeat(max)} tail`;
    expect(indexed(long, 0)).toBe(long);
    expect(indexed(long, 1n)).toBe("h".repeat(max));
  });

  it("a title is the prompt's first non-empty line, at most 80 characters", () => {
    expect(titleFromPrompt(user("\n   \n  Fix it  \nmore"))).toBe("Fix it");
    expect(titleFromPrompt(user("   \n\t"))).toBeNull();
    expect(titleFromPrompt(assistant("An answer is no title"))).toBeNull();
    const eighty = "x".repeat(80);
    expect(titleFromPrompt(user(eighty))).toBe(eighty);
    expect(titleFromPrompt(user(`${"y".repeat(78)} z and more`))).toBe(`${"y".repeat(78)}…`);
    expect(titleFromPrompt(user("a".repeat(81)))).toBe(`${"a".repeat(79)}…`);
  });
});
