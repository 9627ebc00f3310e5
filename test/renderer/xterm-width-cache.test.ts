// The shared character widths of xterm's terminals (app/renderer/src/session/xterm-width-cache.ts),
// on a stand-in for xterm's private WidthCache (the real one is exercised end to end in
// e2e-terminal-reuse.test.ts): what is shared, and under which conditions a width is measured again.
import type { Terminal } from "@xterm/xterm";
import { afterAll, beforeAll, beforeEach, expect, test } from "vitest";
import { SHARED_WIDTHS_MAX, shareWidthMeasures } from "../../app/renderer/src/session/xterm-width-cache.ts";

const page = { devicePixelRatio: 1, fonts: [] as { status: string }[] };
const saved = { window: globalThis.window, document: globalThis.document };

beforeAll(() => {
  Object.assign(globalThis, {
    window: {
      get devicePixelRatio() {
        return page.devicePixelRatio;
      },
    },
    document: { fonts: page.fonts },
  });
});
afterAll(() => Object.assign(globalThis, saved));

/** The measured widths, by character: what the page's layout would answer. */
let layout = new Map<string, number>();
let measures: string[] = [];

class StandInWidthCache {
  _font = "";
  _fontSize = 0;
  _weight = "normal";
  _weightBold = "bold";
  constructor(font: string, fontSize: number) {
    this._font = font;
    this._fontSize = fontSize;
  }
  _measure(c: string, variant: number): number {
    measures.push(`${c}/${variant}`);
    return layout.get(c) ?? 8;
  }
}

function terminalWith(cache: object): Terminal {
  return { _core: { _renderService: { _renderer: { value: { _widthCache: cache } } } } } as unknown as Terminal;
}

beforeEach(() => {
  layout = new Map();
  measures = [];
  page.devicePixelRatio = 1;
  page.fonts.length = 0;
});

// Each test uses a font of its own: the shared table outlives a test, as it outlives a terminal.
test("a second terminal of the same font measures nothing the first measured; another style or font is measured", () => {
  const first = new StandInWidthCache("mono-a", 13);
  shareWidthMeasures(terminalWith(first));
  expect(first._measure("W", 0)).toBe(8);
  expect(first._measure("x", 0)).toBe(8);
  expect(measures).toEqual(["W/0", "x/0"]);

  const second = new StandInWidthCache("mono-a", 13);
  shareWidthMeasures(terminalWith(second));
  expect(second._measure("W", 0)).toBe(8);
  expect(second._measure("x", 0)).toBe(8);
  expect(measures).toHaveLength(2);

  layout.set("x", 9);
  expect(second._measure("x", 1)).toBe(9); // bold: measured
  expect(new StandInWidthCache("mono-a", 14)._measure("x", 0)).toBe(9); // another size
  expect(new StandInWidthCache("mono-b", 13)._measure("x", 0)).toBe(9); // another font
  const heavier = new StandInWidthCache("mono-a", 13);
  heavier._weight = "600";
  expect(heavier._measure("x", 0)).toBe(9); // another weight
  expect(measures).toEqual(["W/0", "x/0", "x/1", "x/0", "x/0", "x/0"]);
});

test("a zoom or a web font loaded measures again; a width of 0 (a terminal out of the page) is never kept", () => {
  const cache = new StandInWidthCache("mono-c", 13);
  shareWidthMeasures(terminalWith(cache));
  expect(cache._measure("a", 0)).toBe(8);
  layout.set("a", 7.5);
  page.devicePixelRatio = 2;
  expect(cache._measure("a", 0)).toBe(7.5);
  page.fonts.push({ status: "loading" });
  expect(cache._measure("a", 0)).toBe(7.5); // a font still loading changes nothing yet
  page.fonts[0]!.status = "loaded";
  layout.set("a", 7);
  expect(cache._measure("a", 0)).toBe(7);
  expect(measures).toEqual(["a/0", "a/0", "a/0"]);

  layout.set("b", 0);
  expect(cache._measure("b", 0)).toBe(0);
  layout.set("b", 8);
  expect(cache._measure("b", 0)).toBe(8);
  expect(measures.slice(3)).toEqual(["b/0", "b/0"]);
});

test("the table starts again when full, and answers right after", () => {
  const cache = new StandInWidthCache("mono-d", 13);
  shareWidthMeasures(terminalWith(cache));
  for (let i = 0; i <= SHARED_WIDTHS_MAX; i++) cache._measure(String.fromCodePoint(0x4e00 + i), 0);
  measures = [];
  layout.set("z", 6);
  expect(cache._measure("z", 0)).toBe(6);
  expect(cache._measure("z", 0)).toBe(6);
  expect(measures).toEqual(["z/0"]);
});

test("a terminal without xterm's private width cache (another xterm version) is left as it is", () => {
  const odd = { _measure: () => 1 };
  expect(() => shareWidthMeasures(terminalWith(odd))).not.toThrow();
  expect(() => shareWidthMeasures({} as Terminal)).not.toThrow();
  expect(odd._measure).toBeTypeOf("function");
  const notShared = { _font: "f", _fontSize: 1, _weight: "normal", _weightBold: "bold" };
  shareWidthMeasures(terminalWith(notShared)); // no _measure on its class: nothing to share
  expect(Object.getPrototypeOf(notShared)).toBe(Object.prototype);
  expect("_measure" in Object.prototype).toBe(false);
});
