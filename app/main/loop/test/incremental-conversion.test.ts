// The incremental conversion behind defaultConvertToLlm and the providers' request builders: its
// result always equals one conversion of the whole list, it converts only what is new when the
// list grew at its end, and it converts again from the start whenever the list is not the one it
// converted grown at its end (truncated, forked, another transcript, another key).
import { describe, expect, test } from "vitest";
import type { AgentMessage, CustomMessage, UserMessage } from "../../../shared/agent-types.ts";
import { incrementalConversion } from "../incremental-conversion.ts";
import { defaultConvertToLlm } from "../messages.ts";

interface Item {
  text: string;
}
const item = (text: string): Item => ({ text });

/** A converter of items to their text, upper-cased after "!" items, that records what it is given. */
function recorded(splitsBefore: (m: Item) => boolean = () => true, join?: (a: string, b: string) => string | undefined) {
  const seen: string[][] = [];
  const convert = (messages: readonly Item[], suffix: string): string[] => {
    seen.push(messages.map((m) => m.text));
    return messages.map((m) => m.text + suffix);
  };
  const run = incrementalConversion<Item, string, string>({ convert, splitsBefore, join });
  return { run, seen };
}

describe("incrementalConversion", () => {
  test("a list grown at its end: only the new part (and the last message) is converted; the result is the whole conversion", () => {
    const { run, seen } = recorded();
    const list = [item("a"), item("b")];
    expect(run(list, "k", "")).toEqual(["a", "b"]);
    expect(seen).toEqual([["a"], ["b"]]);
    list.push(item("c"), item("d"));
    seen.length = 0;
    expect(run(list, "k", "")).toEqual(["a", "b", "c", "d"]);
    expect(seen).toEqual([["b", "c"], ["d"]]);
    // A copy of the same messages (a new run copies the transcript) reuses the prefix too.
    seen.length = 0;
    expect(run([...list, item("e")], "k", "")).toEqual(["a", "b", "c", "d", "e"]);
    expect(seen).toEqual([["d"], ["e"]]);
  });

  test("each call returns a new array: changing it changes nothing later", () => {
    const { run } = recorded();
    const list = [item("a"), item("b"), item("c")];
    const first = run(list, "k", "");
    first.push("junk");
    first[0] = "changed";
    expect(run(list, "k", "")).toEqual(["a", "b", "c"]);
    expect(run(list, "k", "")).not.toBe(run(list, "k", ""));
  });

  test("a truncated list, a replaced message, another transcript or another key: converted again from the start", () => {
    const { run, seen } = recorded();
    const list = [item("a"), item("b"), item("c"), item("d")];
    run(list, "k", "");
    // Truncated below the converted prefix (a rewind that drops messages, an edit).
    seen.length = 0;
    expect(run(list.slice(0, 2), "k", "")).toEqual(["a", "b"]);
    expect(seen[0]).toEqual(["a"]);
    run(list, "k", "");
    // The last converted message replaced (a fork that diverges, an edited message).
    seen.length = 0;
    const forked = [list[0]!, list[1]!, item("C"), list[3]!];
    expect(run(forked, "k", "")).toEqual(["a", "b", "C", "d"]);
    expect(seen[0]).toEqual(["a", "b", "C"]);
    // Another key (the same transcript for another model).
    seen.length = 0;
    expect(run(forked, "other", "!")).toEqual(["a!", "b!", "C!", "d!"]);
    expect(seen[0]).toEqual(["a", "b", "C"]);
    // Another transcript altogether: its own prefix, the first one's is kept.
    seen.length = 0;
    const second = [item("x"), item("y")];
    expect(run(second, "k", "")).toEqual(["x", "y"]);
    expect(run(forked, "other", "!")).toEqual(["a!", "b!", "C!", "d!"]);
    expect(seen).toEqual([["x"], ["y"], ["d"]]);
  });

  test("the prefix ends at the last split point; what follows it is converted on every call", () => {
    const { run, seen } = recorded((m) => m.text.startsWith("u"));
    const list = [item("u1"), item("a1"), item("r1"), item("u2"), item("a2"), item("r2")];
    expect(run(list, "k", "")).toEqual(["u1", "a1", "r1", "u2", "a2", "r2"]);
    expect(seen).toEqual([
      ["u1", "a1", "r1"],
      ["u2", "a2", "r2"],
    ]);
    seen.length = 0;
    list.push(item("a3"));
    expect(run(list, "k", "")).toEqual(["u1", "a1", "r1", "u2", "a2", "r2", "a3"]);
    expect(seen).toEqual([["u2", "a2", "r2", "a3"]]);
    // No split point at all: the whole list, every time, still right.
    const none = recorded(() => false);
    expect(none.run(list, "k", "")).toEqual(list.map((m) => m.text));
    expect(none.run(list, "k", "")).toEqual(list.map((m) => m.text));
    expect(none.seen).toEqual([list.map((m) => m.text), list.map((m) => m.text)]);
  });

  test("join merges the first item of a run into the last one before it, without changing either", () => {
    // Items joined when both end in "+": like two messages of one role that a provider merges.
    const join = (a: string, b: string) => (a.endsWith("+") && b.endsWith("+") ? `${a}${b}` : undefined);
    const { run } = recorded(() => true, join);
    const convertWhole = (list: Item[]) => {
      const out: string[] = [];
      for (const m of list) {
        const last = out.at(-1);
        if (last !== undefined && join(last, m.text) !== undefined) out[out.length - 1] = join(last, m.text)!;
        else out.push(m.text);
      }
      return out;
    };
    const list: Item[] = [];
    for (const text of ["a", "b+", "c+", "d", "e+", "f+", "g+", "h"]) {
      list.push(item(text));
      expect(run(list, "k", "")).toEqual(convertWhole(list));
    }
    expect(run(list, "k", "")).toEqual(["a", "b+c+", "d", "e+f+g+", "h"]);
  });

  test("head items come first, never converted or joined; from skips the first messages", () => {
    const join = (a: string, b: string) => (a.endsWith("+") && b.endsWith("+") ? `${a}${b}` : undefined);
    const { run, seen } = recorded(() => true, join);
    const list = [item("s+"), item("a+"), item("b")];
    expect(run(list.slice(1), "k", "", ["head+"])).toEqual(["head+", "a+", "b"]);
    expect(run([], "k", "", ["head+"])).toEqual(["head+"]);
    // From 1: the list from its second message, keyed on it (so the call above, which started
    // there too, left its prefix); past the end, the head alone.
    seen.length = 0;
    expect(run(list, "k", "", ["summary+"], 1)).toEqual(["summary+", "a+", "b"]);
    expect(seen).toEqual([["b"]]);
    list.push(item("c"));
    seen.length = 0;
    expect(run(list, "k", "", ["summary+"], 1)).toEqual(["summary+", "a+", "b", "c"]);
    expect(seen).toEqual([["b"], ["c"]]);
    expect(run(list, "k", "", ["summary"], 9)).toEqual(["summary"]);
  });
});

describe("defaultConvertToLlm", () => {
  const user = (text: string): UserMessage => ({ role: "user", content: text, timestamp: 0 });
  const note = (text: string): CustomMessage => ({ role: "custom", customType: "note", content: text, display: true, timestamp: 0 });

  test("equals dropping the app entries, at every length of a growing transcript, with a new array each time", () => {
    const transcript: AgentMessage[] = [];
    let previous: unknown;
    for (let i = 0; i < 30; i++) {
      transcript.push(i % 4 === 3 ? note(`n${i}`) : user(`u${i}`));
      const converted = defaultConvertToLlm(transcript);
      expect(converted).toEqual(transcript.filter((m) => m.role !== "custom"));
      expect(converted).not.toBe(previous);
      expect(converted).not.toBe(transcript);
      previous = converted;
    }
  });

  test("a compacted, forked or edited transcript converts to its own messages", () => {
    const base: AgentMessage[] = [user("a"), user("b"), note("c"), user("d")];
    expect(defaultConvertToLlm(base).map((m) => m.content)).toEqual(["a", "b", "d"]);
    // Forked at b: the fork shares the first messages and goes on differently.
    const fork: AgentMessage[] = [base[0]!, base[1]!, user("x")];
    expect(defaultConvertToLlm(fork).map((m) => m.content)).toEqual(["a", "b", "x"]);
    // Edited at b: a new transcript from the edit on (as a store-backed fork makes it).
    const edited: AgentMessage[] = [base[0]!, user("B"), note("c"), user("d")];
    expect(defaultConvertToLlm(edited).map((m) => m.content)).toEqual(["a", "B", "d"]);
    // Compacted to a view that starts elsewhere (the summary, then the kept messages).
    const compacted: AgentMessage[] = [user("summary"), base[3]!];
    expect(defaultConvertToLlm(compacted).map((m) => m.content)).toEqual(["summary", "d"]);
    expect(defaultConvertToLlm(base).map((m) => m.content)).toEqual(["a", "b", "d"]);
  });
});
