// The bounds walk: depth and size measured without recursion, on values that would overflow the
// stack of JSON.stringify, including cycles and throwing getters; never throws.
import { describe, expect, it } from "vitest";
import { exceedsBounds, jsonTextExceeds } from "../../app/shared/json-bounds.ts";

const nest = (levels: number, leaf: unknown = 1): unknown => {
  let value = leaf;
  for (let i = 0; i < levels; i++) value = i % 2 ? [value] : { a: value };
  return value;
};

describe("exceedsBounds", () => {
  const bounds = { maxDepth: 64, maxChars: 10_000 };

  it("accepts values within the bounds, up to exactly the depth", () => {
    expect(exceedsBounds({ path: "a.txt", edits: [{ oldText: "a", newText: "b" }] }, bounds)).toBeNull();
    expect(exceedsBounds(nest(64), bounds)).toBeNull();
    expect(exceedsBounds("x".repeat(9_000), bounds)).toBeNull();
    expect(exceedsBounds(undefined, bounds)).toBeNull();
  });

  it("refuses one level too deep, and 100,000 levels without overflowing", () => {
    expect(exceedsBounds(nest(65), bounds)).toBe("nested deeper than 64 levels");
    expect(exceedsBounds(nest(100_000), { maxDepth: 64, maxChars: 1e9 })).toBe("nested deeper than 64 levels");
  });

  it("refuses too large a value, including one huge array, before walking it", () => {
    expect(exceedsBounds({ text: "x".repeat(20_000) }, bounds)).toMatch(/larger than 10,000 characters/);
    expect(exceedsBounds(new Array(1e8), bounds)).toMatch(/larger than/);
    expect(
      exceedsBounds(
        Array.from({ length: 5000 }, () => ({ k: 1 })),
        bounds,
      ),
    ).toMatch(/larger than/);
  });

  it("stops reading a container's items once the size is passed: items past the limit are never read", () => {
    // Before, every item of a container was queued (read) before any was counted: a model's
    // arguments of millions of small values allocated an entry per value (bench:huge-answer,
    // tool-args: the host's main thread blocked 478 to 611 ms, 141 to 155 after).
    const items: unknown[] = Array.from({ length: 1000 }, () => "x".repeat(100));
    Object.defineProperty(items, 999, {
      get: () => {
        throw new Error("read past the limit");
      },
    });
    expect(exceedsBounds(items, bounds)).toMatch(/larger than 10,000 characters/);
    const keyed = Object.fromEntries(Array.from({ length: 1000 }, (_, i) => [`k${i}`, "y".repeat(100)]));
    Object.defineProperty(keyed, "k999", {
      enumerable: true,
      get: () => {
        throw new Error("read past the limit");
      },
    });
    expect(exceedsBounds(keyed, bounds)).toMatch(/larger than 10,000 characters/);
    // Within the limit, every item is still read (and counted).
    expect(exceedsBounds(items.slice(0, 90), bounds)).toBeNull();
    expect(exceedsBounds([...items.slice(0, 90), "z".repeat(1000)], bounds)).toMatch(/larger than/);
  });

  it("stops on cycles and survives getters that throw", () => {
    const cycle: Record<string, unknown> = {};
    cycle.self = cycle;
    cycle.again = cycle;
    expect(exceedsBounds(cycle, bounds)).toMatch(/deeper than 64|larger than/);
    const hostile = Object.defineProperty({}, "boom", {
      enumerable: true,
      get: () => {
        throw new Error("no");
      },
    });
    expect(exceedsBounds(hostile, bounds)).toBe("not readable as plain data");
  });
});

describe("maxValues", () => {
  it("counts every value, and stops at the limit however many there are", () => {
    expect(exceedsBounds({ a: [1, 2, "x"], b: null }, { maxDepth: 64, maxChars: 1e9, maxValues: 6 })).toBeNull();
    expect(exceedsBounds({ a: [1, 2, "x"], b: null }, { maxDepth: 64, maxChars: 1e9, maxValues: 5 })).toBe("made of more than 5 values");
    // A million empty objects: within 32 million characters, refused by their number.
    const many = Array.from({ length: 1_000_000 }, () => ({}));
    expect(exceedsBounds(many, { maxDepth: 64, maxChars: 32 * 1024 * 1024, maxValues: 250_000 })).toBe("made of more than 250,000 values");
  });
});

describe("jsonTextExceeds", () => {
  const limits = { maxDepth: 64, maxValues: 1_000 };
  const deep = (n: number) => "[".repeat(n) + "]".repeat(n);

  it("agrees with the walk of the parsed value on depth, and refuses whatever the walk refuses by number", () => {
    for (const text of [deep(64), deep(65), `{"a":${deep(63)}}`, `{"a":${deep(64)}}`]) {
      const parsed = exceedsBounds(JSON.parse(text), { ...limits, maxChars: 1e9 });
      expect(jsonTextExceeds(text, limits), text.slice(0, 40)).toBe(parsed);
    }
    // It counts the values plus the empty containers: never fewer than the walk.
    for (const n of [498, 499, 500, 998, 999, 1000, 1001, 2000]) {
      for (const text of [
        `[${"0,".repeat(n)}0]`,
        `{${Array.from({ length: n }, (_, i) => `"k${i}":[],`).join("")}"last":{}}`,
        `[${"[0,0],".repeat(n / 2)}0]`,
        `[${"[[0]],".repeat(n / 2)}0]`,
      ]) {
        const walked = exceedsBounds(JSON.parse(text), { ...limits, maxChars: 1e9 });
        if (walked !== null) expect(jsonTextExceeds(text, limits), text.slice(0, 40)).toBe(walked);
      }
    }
    // Lists nested in lists: a few commas, many values (the count of commas alone let 15 million through).
    const chains = `[${Array.from({ length: 20 }, () => `${"[".repeat(60)}${"]".repeat(60)}`).join(",")}]`;
    expect(exceedsBounds(JSON.parse(chains), { ...limits, maxChars: 1e9 })).toBe("made of more than 1,000 values");
    expect(jsonTextExceeds(chains, limits)).toBe("made of more than 1,000 values");
  });

  it("does not count brackets, braces or commas inside strings, escaped quotes included", () => {
    const inside = JSON.stringify({ text: `${"[{,".repeat(10_000)} \\" \\\\" "quoted" ${"\\".repeat(7)}` });
    expect(jsonTextExceeds(inside, limits)).toBeNull();
    expect(jsonTextExceeds(`{"a":"\\\\",${"[".repeat(65)}`, limits)).toBe("nested deeper than 64 levels");
    expect(jsonTextExceeds(`{"a":"\\"[[[[",${"[".repeat(10)}`, limits)).toBeNull();
  });

  it("refuses 32 MB of nesting or of empty objects in one pass, and leaves text that is not JSON to the parser", () => {
    expect(jsonTextExceeds(deep(16 * 1024 * 1024), { maxDepth: 64, maxValues: 250_000 })).toBe("nested deeper than 64 levels");
    expect(jsonTextExceeds(`[${"{},".repeat(8_000_000)}{}]`, { maxDepth: 64, maxValues: 250_000 })).toBe("made of more than 250,000 values");
    expect(jsonTextExceeds('{"a": "never closed', limits)).toBeNull();
    expect(jsonTextExceeds("", limits)).toBeNull();
  });
});
