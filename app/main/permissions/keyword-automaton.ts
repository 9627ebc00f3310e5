// A multi-keyword finder (Aho-Corasick) over ASCII, case-insensitive: one pass over the text
// whatever the number of keywords, so the redaction rules' regular expressions only run near
// their keywords. Characters outside ASCII never match a keyword character. Built once per rule
// set; `scan` allocates nothing but its small result (hits go to the caller's buffer) and runs its
// loop in WebAssembly where it can (keyword-scan-wasm.ts: there, most bytes are passed over by
// the keywords' grams, keyword-grams.ts, and the automaton runs only near them). The same pass
// reports where control characters are (isControlByte), for callers that need to know whether
// text is plain: control characters that no keyword has get a class of their own whose every
// transition is the "hit" -1 (the root, which no keyword ends at), so the WebAssembly loop notes
// them off its hot path.
// Keywords may carry a filter (keyword-filters.ts): a hit is then reported only where what follows
// may let a rule match, so the many hits that lead nowhere never leave the loop. Never throws, but
// for a hit buffer smaller than MIN_SCAN_HITS (the caller's error).

import { isControlByte, mayPass } from "./keyword-filters.ts";
import { gramTables } from "./keyword-grams.ts";
import { createWasmScanner, type ScanStep, type WasmScanner } from "./keyword-scan-wasm.ts";

export type { ScanStep };

const ALPHABET = 128;
/**
 * The smallest hit buffer `scan` takes. Each step stops with room left for the hits of one more
 * position (the WebAssembly loop keeps 128 values for them, and room for 8 per pair it asks for;
 * no position of the rule set ends more than 3 keywords), so a smaller buffer would make no
 * progress (WebAssembly) or be written past its end (a position ending many keywords).
 */
export const MIN_SCAN_HITS = 256;

export class KeywordAutomaton {
  /**
   * delta[state * classes + class of char]: the next state times `classes` (a full DFA: fail
   * links are folded in), negative when keywords end there (one load per character in `scan`).
   * Characters are grouped into classes (every character no keyword has is class 0, upper and
   * lower case share one), which keeps the table several times smaller than one column per
   * ASCII character, so more of it stays in the processor's caches.
   */
  private readonly delta: Int32Array;
  /** Per ASCII character: its class. */
  private readonly classOf: Uint8Array;
  private readonly classes: number;
  /** Keyword ids ending at a state, as a slice of `outputs`. */
  private readonly outStart: Int32Array;
  private readonly outEnd: Int32Array;
  private readonly outputs: Int32Array;
  readonly keywords: readonly string[];
  /** Per keyword: its FILTER_* bits. */
  readonly filters: readonly number[];
  private readonly lengths: Int32Array;
  /**
   * Per table row (state * classes): the filter bits of the hits reported there, 0 when one of
   * its keywords has none (always reported). A row's hits are reported when any filter may pass.
   */
  private readonly rowFilters: Uint8Array;
  /** A keyword has a control character: the WebAssembly loop (which finds them by class) is not used. */
  private readonly controlsInKeywords: boolean;
  /** The WebAssembly loop (null where WebAssembly is unavailable), built on first scan. */
  private wasm: WasmScanner | null | undefined;
  private readonly pairs = new Int32Array(2048);

  /** `filters`: per keyword, FILTER_* bits of keyword-filters.ts (none: every hit is reported). */
  constructor(keywords: readonly string[], filters: readonly number[] = []) {
    this.keywords = keywords;
    this.filters = filters;
    this.lengths = Int32Array.from(keywords, (k) => k.length);
    const classOf = new Uint8Array(ALPHABET);
    /** A character of each class (class 0: none). */
    const representative: number[] = [-1];
    const gotoTable: Map<number, number>[] = [new Map()];
    const ends: number[][] = [[]];
    keywords.forEach((keyword, id) => {
      const lower = keyword.toLowerCase();
      if ([...lower].some((ch) => ch.charCodeAt(0) >= ALPHABET)) return; // not ASCII: never matched here
      let state = 0;
      for (let i = 0; i < lower.length; i++) {
        const c = lower.charCodeAt(i);
        if (classOf[c] === 0) {
          classOf[c] = representative.length;
          representative.push(c);
        }
        let next = gotoTable[state]!.get(c);
        if (next === undefined) {
          next = gotoTable.length;
          gotoTable.push(new Map());
          ends.push([]);
          gotoTable[state]!.set(c, next);
        }
        state = next;
      }
      if (state !== 0) ends[state]!.push(id);
    });
    for (let c = 65; c <= 90; c++) classOf[c] = classOf[c + 32]!;
    let controlsInKeywords = false;
    for (let c = 0; c < ALPHABET; c++) if (isControlByte(c) && classOf[c] !== 0) controlsInKeywords = true;
    this.controlsInKeywords = controlsInKeywords;
    const controlClass = representative.length;
    for (let c = 0; c < ALPHABET; c++) if (isControlByte(c) && classOf[c] === 0) classOf[c] = controlClass;
    const classes = controlClass + 1;
    const states = gotoTable.length;
    const delta = new Int32Array(states * classes);
    const fail = new Int32Array(states);
    const outputsOf: number[][] = ends.map((e) => [...e]);
    const queue: number[] = [];
    for (let k = 1; k < classes; k++) {
      const next = gotoTable[0]!.get(representative[k]!);
      delta[k] = next ?? 0;
      if (next !== undefined) queue.push(next);
    }
    for (let head = 0; head < queue.length; head++) {
      const state = queue[head]!;
      outputsOf[state]!.push(...outputsOf[fail[state]!]!);
      for (let k = 0; k < classes; k++) {
        const next = k === 0 || k === controlClass ? undefined : gotoTable[state]!.get(representative[k]!);
        if (next !== undefined) {
          fail[next] = delta[fail[state]! * classes + k]!;
          queue.push(next);
          delta[state * classes + k] = next;
        } else {
          delta[state * classes + k] = delta[fail[state]! * classes + k]!;
        }
      }
    }
    for (let i = 0; i < delta.length; i++) {
      const next = delta[i]!;
      delta[i] = i % classes === controlClass ? -1 : ends[next] !== undefined && outputsOf[next]!.length > 0 ? -(next * classes) - 1 : next * classes;
    }
    this.delta = delta;
    this.classOf = classOf;
    this.classes = classes;
    this.outStart = new Int32Array(states);
    this.outEnd = new Int32Array(states);
    const flat: number[] = [];
    outputsOf.forEach((out, state) => {
      this.outStart[state] = flat.length;
      flat.push(...new Set(out));
      this.outEnd[state] = flat.length;
    });
    this.outputs = Int32Array.from(flat);
    this.rowFilters = new Uint8Array(delta.length);
    outputsOf.forEach((out, state) => {
      let filter = 0;
      for (const id of out) {
        const f = filters[id] ?? 0;
        if (f === 0) {
          filter = 0;
          break;
        }
        filter |= f;
      }
      this.rowFilters[state * classes] = filter;
    });
  }

  /**
   * Finds every keyword occurrence in text[from, to): returns how many values were written to
   * `hits` as (keyword id, start) pairs, where the scan stopped (early when `hits` is nearly
   * full), the state to resume from there (opaque: pass it back), and the positions of the
   * first and last control characters scanned (-1 when none).
   */
  scan(text: string, from: number, to: number, hits: Int32Array, state = 0): ScanStep {
    if (hits.length < MIN_SCAN_HITS) throw new RangeError(`KeywordAutomaton.scan needs a hit buffer of at least ${MIN_SCAN_HITS} values; got ${hits.length}`);
    if (this.wasm === undefined)
      this.wasm = (this.controlsInKeywords ? undefined : createWasmScanner(this.delta, this.classOf, this.rowFilters, gramTables(this.keywords, this.filters))) ?? null;
    if (this.wasm) return this.scanWasm(this.wasm, text, from, to, hits, state);
    const { delta, classOf, classes, outStart, outEnd, outputs, lengths, rowFilters } = this;
    const max = hits.length - 2;
    let count = 0;
    let firstControl = -1;
    let lastControl = -1;
    for (let i = from; i < to; i++) {
      const c = text.charCodeAt(i);
      if (isControlByte(c & 0xff)) {
        if (firstControl < 0) firstControl = i;
        lastControl = i;
      }
      state = delta[state + (c < ALPHABET ? classOf[c]! : 0)]!;
      if (state < 0) {
        state = -state - 1;
        // The root: a control character. Else keywords end here, if what follows may let a rule match.
        if (state === 0 || !mayPass(text, i + 1, to, rowFilters[state]!)) continue;
        const at = (state / classes) | 0;
        for (let k = outStart[at]!, b = outEnd[at]!; k < b; k++) {
          const id = outputs[k]!;
          hits[count++] = id;
          hits[count++] = i + 1 - lengths[id]!;
        }
        if (count > max - 64) return { count, next: i + 1, state, firstControl, lastControl };
      }
    }
    return { count, next: to, state, firstControl, lastControl };
  }

  /** Whether any keyword occurs in a short text (plain JavaScript: no copying). */
  contains(text: string): boolean {
    const { delta, classOf } = this;
    let state = 0;
    for (let i = 0; i < text.length; i++) {
      const c = text.charCodeAt(i);
      state = delta[state + (c < ALPHABET ? classOf[c]! : 0)]!;
      if (state < -1) return true;
      if (state === -1) state = 0;
    }
    return false;
  }

  private scanWasm(wasm: WasmScanner, text: string, from: number, to: number, hits: Int32Array, state: number): ScanStep {
    const { outStart, outEnd, outputs, lengths, classes } = this;
    const pairs = this.pairs;
    const max = hits.length - 2;
    let count = 0;
    let at = from;
    let firstControl = -1;
    let lastControl = -1;
    while (at < to && count < max - 64 * 2) {
      const room = Math.min(pairs.length, (max - count) >> 3) & ~1;
      const r = wasm.scan(text, at, to, state, pairs.subarray(0, Math.max(2, room)));
      if (r.firstControl >= 0) {
        if (firstControl < 0) firstControl = r.firstControl;
        lastControl = r.lastControl;
      }
      for (let h = 0; h < r.count * 2; h += 2) {
        const end = at + pairs[h]!;
        const s = ((-pairs[h + 1]! - 1) / classes) | 0;
        for (let k = outStart[s]!, b = outEnd[s]!; k < b; k++) {
          const id = outputs[k]!;
          hits[count++] = id;
          hits[count++] = end - lengths[id]!;
        }
      }
      at = r.next;
      state = r.state;
    }
    return { count, next: at, state, firstControl, lastControl };
  }
}
