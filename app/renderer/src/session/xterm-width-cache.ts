// xterm.js 6.0's DOM renderer measures a character's width (a span's offsetWidth: a forced layout
// of the whole page) the first time each terminal draws that character in each style, and "W" as
// each terminal opens: every terminal has a width cache of its own (xterm's WidthCache, whose
// comment asks for "a shared API across terminals"). In bench:ui's renderer profile the four
// terminals of a streamed turn spent 150 to 250 ms in these measures, most of it in forced layouts
// of a transcript that had just changed, and a terminal's opening frame the most.
// This shares the measures between every terminal of the page: a width is kept under the font, its
// size, its weights, the character's style and the character, with the page's device pixel ratio
// and how many web fonts have loaded (the only other things that change a measure), so a terminal
// measures a character only when no terminal has under the same conditions. Widths that read 0 (a
// terminal out of the page) are not kept, as xterm does not keep them either.
// It reaches into xterm's private WidthCache through an opened terminal and changes the class's
// measure once, for every later terminal too (xterm keeps these names in its bundle); when the
// names are not there (another xterm version), it changes nothing. Never throws.
import type { Terminal } from "@xterm/xterm";

interface WidthCache {
  _font: string;
  _fontSize: number;
  _weight: unknown;
  _weightBold: unknown;
  _measure(c: string, variant: number): number;
}

/** Kept widths at most; the table starts again past it (a terminal of many scripts' characters). */
export const SHARED_WIDTHS_MAX = 20_000;

const widths = new Map<string, number>();
const shared = new WeakSet<object>();

/** Shares the width measures of `terminal`'s renderer, and of every terminal's after it (see above). */
export function shareWidthMeasures(terminal: Terminal): void {
  const cache = widthCacheOf(terminal);
  if (!cache) return;
  const prototype = Object.getPrototypeOf(cache) as Partial<WidthCache> | null;
  if (!prototype || shared.has(prototype) || typeof prototype._measure !== "function") return;
  shared.add(prototype);
  const measure = prototype._measure;
  prototype._measure = function (this: WidthCache, c: string, variant: number): number {
    const key = `${this._font}\0${this._fontSize}\0${String(this._weight)}\0${String(this._weightBold)}\0${variant}\0${conditions()}\0${c}`;
    const known = widths.get(key);
    if (known !== undefined) return known;
    const width = measure.call(this, c, variant);
    if (width > 0) {
      if (widths.size >= SHARED_WIDTHS_MAX) widths.clear();
      widths.set(key, width);
    }
    return width;
  };
}

function widthCacheOf(terminal: Terminal): WidthCache | undefined {
  const core = (terminal as unknown as { _core?: { _renderService?: { _renderer?: { value?: { _widthCache?: unknown } } } } })._core;
  const cache = core?._renderService?._renderer?.value?._widthCache as Partial<WidthCache> | undefined;
  if (!cache || typeof cache._font !== "string" || typeof cache._fontSize !== "number" || !("_weight" in cache) || !("_weightBold" in cache)) return undefined;
  return cache as WidthCache;
}

/** What changes a measure besides the font's settings: the zoom (device pixel ratio) and web fonts loading. */
function conditions(): string {
  let loaded = 0;
  for (const face of document.fonts) if (face.status === "loaded") loaded++;
  return `${window.devicePixelRatio}\0${loaded}`;
}
