// The keyword automaton's inner loop as a tiny WebAssembly module (built here, byte by byte, so
// there is no compiler in the build): one table load per character at native speed, several
// times what the same loop does in JavaScript. The DFA table and the text (as bytes: characters
// past 127 fall in class 0, as in the JavaScript loop) live in one WebAssembly memory; hits come
// back as (position after the keyword, encoded state) pairs. Control characters (CONTROL_BYTES:
// what terminal-text.ts sanitizes away, carriage returns and escapes included) have a class whose
// transitions are all -1 (see keyword-automaton.ts), so the loop notes where the first and last
// are only when it meets one, and the bash tool learns whether a chunk is plain text without
// scanning it again. A hit whose row has filter bits (keyword-filters.ts) is reported only when
// `filter` says a rule may match there (`mayPass`, on the same bytes). `createWasmScanner`
// returns undefined where WebAssembly is unavailable; the caller then uses its JavaScript loop.
// Never throws.
//
//   scan(in, len, state, out, outEnd, limit) -> hits
//     first = last = -1
//     (the table's cells and CLASSES are kept in bytes, times 4: no multiplication on the chain
//     of dependent loads; hits and the final state go back in the automaton's units)
//     for i in 0..len: state = mem32[TABLE + state + CLASSES[mem8[in+i]]]
//                      if state < 0: state = -state - 1
//                                    if state == 0: (first < 0: first = i); last = i     (a control character)
//                                    elif FILTERS[state] == 0 or filter(in, i+1, limit, FILTERS[state]):
//                                      store (i+1, -state - 1) at out; out += 8; if out >= outEnd: break
//     mem32[0] = state; mem32[4] = i; mem32[8] = first; mem32[12] = last; return hits written
//   filter(in, at, limit, bits) -> 1 when a rule may match after the keyword ending at `at`
//     (mayPass in keyword-filters.ts: the same checks over BYTE_KINDS, reading in[at, limit) only)

import { BYTE_KINDS, FILTER_ASSIGNMENT, FILTER_LOOKAHEAD, FILTER_TOKEN_AFTER, KIND_BEFORE_OPERATOR, KIND_BEFORE_VALUE, KIND_OPERATOR, KIND_TOKEN } from "./keyword-filters.ts";

/**
 * Bytes that make a chunk of terminal output other than plain text: C0 controls but tab and line
 * feed (carriage return and escape included), DEL, and the 8-bit CSI (0x9b). Text is copied in as
 * latin1, so a character past 255 is tested by its low byte: it may be flagged, never missed.
 */
export function isControlByte(c: number): boolean {
  return (c < 32 && c !== 9 && c !== 10) || c === 127 || c === 0x9b;
}
/** Characters copied into WebAssembly memory per call. */
export const WASM_INPUT_CHARS = 64 * 1024;
const OUT_PAIRS = 4096;

export interface ScanStep {
  /** Hits written. */
  count: number;
  /** Where the scan stopped (early when the hit buffer filled). */
  next: number;
  /** The automaton's state there. */
  state: number;
  /** Positions of the first and last control characters in text[from, next), or -1. */
  firstControl: number;
  lastControl: number;
}

export interface WasmScanner {
  /**
   * Scans text[from, to) from `state`; returns how many hits were written to `hits` as
   * (end position, encoded state) pairs, where it stopped, the state there, and where the
   * control characters were.
   */
  scan(text: string, from: number, to: number, state: number, hits: Int32Array): ScanStep;
}

function leb(n: number): number[] {
  const out: number[] = [];
  for (;;) {
    const byte = n & 0x7f;
    n >>>= 7;
    if (n === 0) return [...out, byte];
    out.push(byte | 0x80);
  }
}

function sleb(n: number): number[] {
  const out: number[] = [];
  for (;;) {
    const byte = n & 0x7f;
    n >>= 7;
    if ((n === 0 && (byte & 0x40) === 0) || (n === -1 && (byte & 0x40) !== 0)) return [...out, byte];
    out.push(byte | 0x80);
  }
}

const section = (id: number, body: number[]) => [id, ...leb(body.length), ...body];
const name = (s: string) => [...leb(s.length), ...[...s].map((c) => c.charCodeAt(0))];

/** Where things are in the module's memory (bytes 0..15 hold the last call's state, position and control positions). */
interface Layout {
  /** 256 16-bit cells: each byte value's class in the table (0 past 127 but for control characters), times 4. */
  classes: number;
  /** 256 bytes: each byte value's BYTE_KINDS bits. */
  kinds: number;
  /** One byte per table cell: the filter bits of the row it starts (read at row starts only). */
  filters: number;
  table: number;
}

// WebAssembly opcodes, by name. The code below is laid out one instruction group per line with
// its meaning beside it, so the formatter leaves it alone (prettier-ignore).
const get = (i: number) => [0x20, i];
const set = (i: number) => [0x21, i];
const i32 = (n: number) => [0x41, ...sleb(n)];
const load8 = (offset: number) => [0x2d, 0, ...leb(offset)];
const [BLOCK, LOOP, IF, ELSE, END, BR, BR_IF, RETURN, CALL] = [[0x02, 0x40], [0x03, 0x40], [0x04, 0x40], [0x05], [0x0b], [0x0c], [0x0d], [0x0f], [0x10]];
const [EQZ, LT_S, GE_U, GT_U, ADD, SUB, AND, SHL] = [[0x45], [0x48], [0x4f], [0x4b], [0x6a], [0x6b], [0x71], [0x74]];

function moduleBytes(pages: number, at: Layout): Uint8Array {
  // scan. Params: 0 in, 1 len, 2 state, 3 out, 4 outEnd, 5 limit. Locals: 6 i, 7 bits, 8 o,
  // 9 first, 10 last, 11 p (in + i). Four characters per turn of the loop (their loads address
  // p with offsets 0..3), then one at a time.
  const unit = (k: number, exitDepth: number) => {
    const pos = [...get(6), ...i32(k + 1), ...ADD]; // i + k + 1: after the character
    // prettier-ignore
    return [
      ...get(11), ...load8(k), ...i32(1), ...SHL, 0x2f, 1, ...leb(at.classes), ...get(2), ...ADD, 0x28, 2, ...leb(at.table), ...set(2), // state = table[class + state] (both in bytes)
      ...get(2), ...i32(0), ...LT_S, ...IF, // if state < 0
      ...i32(-1), ...get(2), ...SUB, ...set(2), //   state = -1 - state
      ...get(2), ...EQZ, ...IF, //   if state == 0: a control character at i + k
      ...get(9), ...i32(0), ...LT_S, ...IF, ...get(6), ...i32(k), ...ADD, ...set(9), ...END, //     if first < 0: first = i + k
      ...get(6), ...i32(k), ...ADD, ...set(10), //     last = i + k
      ...ELSE,
      ...get(2), ...i32(2), 0x76, ...load8(at.filters), ...set(7), //     bits = filters[state / 4]
      ...get(7), ...EQZ, 0x04, 0x7f, ...i32(1), ...ELSE, ...get(0), ...pos, ...get(5), ...get(7), ...CALL, 1, ...END, //     (bits == 0 or filter(in, i + k + 1, limit, bits))
      ...IF, //     if so: report
      ...get(8), ...pos, 0x36, 2, 0, //       store(o, i + k + 1)
      ...get(8), ...i32(-1), ...get(2), ...i32(2), 0x76, ...SUB, 0x36, 2, 4, //       store(o + 4, -1 - state / 4)
      ...get(8), ...i32(8), ...ADD, ...set(8), //       o += 8
      ...get(8), ...get(4), ...GE_U, ...IF, ...pos, ...set(6), ...BR, exitDepth, ...END, //       if o >= outEnd: i = i + k + 1, br $done
      ...END,
      ...END,
      ...END, // end if state < 0
    ];
  };
  // prettier-ignore
  const scan = [
    ...get(2), ...i32(2), ...SHL, ...set(2), // the table's cells in bytes
    ...get(3), ...set(8),
    ...i32(-1), ...set(9), ...i32(-1), ...set(10),
    ...BLOCK, // $done
    ...BLOCK, //   $tail
    ...LOOP, //     $fours
    ...get(6), ...i32(4), ...ADD, ...get(1), ...GT_U, ...BR_IF, 1, // if i + 4 > len: br $tail
    ...get(0), ...get(6), ...ADD, ...set(11), // p = in + i
    ...unit(0, 6), ...unit(1, 6), ...unit(2, 6), ...unit(3, 6),
    ...get(6), ...i32(4), ...ADD, ...set(6), // i += 4
    ...BR, 0,
    ...END,
    ...END,
    ...LOOP, //   $ones
    ...get(6), ...get(1), ...GE_U, ...BR_IF, 1, // if i >= len: br $done
    ...get(0), ...get(6), ...ADD, ...set(11),
    ...unit(0, 5),
    ...get(6), ...i32(1), ...ADD, ...set(6), // i++
    ...BR, 0,
    ...END,
    ...END,
    ...i32(0), ...get(2), ...i32(2), 0x76, 0x36, 2, 0, // mem[0] = state / 4
    ...i32(4), ...get(6), 0x36, 2, 0, // mem[4] = i
    ...i32(8), ...get(9), 0x36, 2, 0, // mem[8] = first
    ...i32(12), ...get(10), 0x36, 2, 0, // mem[12] = last
    ...get(8), ...get(3), ...SUB, ...i32(3), 0x76, // (o - out) >> 3
    ...END,
  ];
  // filter (mayPass). Params: 0 in, 1 at, 2 limit, 3 bits. Locals: 4 p, 5 to, 6 n, 7 kind.
  const kindAt = (address: number[]) => [...address, ...load8(0), ...load8(at.kinds)];
  // prettier-ignore
  const upTo = (count: number, kind: number) => [
    ...i32(0), ...set(6),
    ...BLOCK, ...LOOP,
    ...get(6), ...i32(count), ...GE_U, ...BR_IF, 1,
    ...kindAt(get(4)), ...i32(kind), ...AND, ...EQZ, ...BR_IF, 1,
    ...get(4), ...i32(1), ...ADD, ...set(4),
    ...get(6), ...i32(1), ...ADD, ...set(6),
    ...BR, 0,
    ...END, ...END,
  ];
  // prettier-ignore
  const filter = [
    ...get(3), ...i32(FILTER_TOKEN_AFTER), ...AND, ...IF,
    ...get(1), ...get(2), ...GE_U, ...IF, ...i32(1), ...RETURN, ...END,
    ...kindAt([...get(0), ...get(1), ...ADD]), ...i32(KIND_TOKEN), ...AND, ...IF, ...i32(1), ...RETURN, ...END,
    ...END,
    ...get(3), ...i32(FILTER_ASSIGNMENT), ...AND, ...EQZ, ...IF, ...i32(0), ...RETURN, ...END,
    ...get(1), ...i32(FILTER_LOOKAHEAD), ...ADD, ...get(2), ...GT_U, ...IF, ...i32(1), ...RETURN, ...END,
    ...get(0), ...get(1), ...ADD, ...set(4), // p = in + at
    ...get(4), ...i32(24), ...ADD, ...set(5),
    ...BLOCK, ...LOOP, // up to the operator
    ...get(4), ...get(5), ...GE_U, ...IF, ...i32(0), ...RETURN, ...END,
    ...kindAt(get(4)), ...set(7),
    ...get(7), ...i32(KIND_OPERATOR), ...AND, ...BR_IF, 1,
    ...get(7), ...i32(KIND_BEFORE_OPERATOR), ...AND, ...EQZ, ...IF, ...i32(0), ...RETURN, ...END,
    ...get(4), ...i32(1), ...ADD, ...set(4),
    ...BR, 0,
    ...END, ...END,
    ...upTo(4, KIND_OPERATOR),
    ...upTo(6, KIND_BEFORE_VALUE),
    ...i32(0), ...set(6), // the value: at least 5 token characters
    ...BLOCK, ...LOOP,
    ...get(6), ...i32(5), ...GE_U, ...BR_IF, 1,
    ...kindAt([...get(4), ...get(6), ...ADD]), ...i32(KIND_TOKEN), ...AND, ...EQZ, ...BR_IF, 1,
    ...get(6), ...i32(1), ...ADD, ...set(6),
    ...BR, 0,
    ...END, ...END,
    ...get(6), ...i32(5), ...GE_U,
    ...END,
  ];
  const scanCode = [1, 6, 0x7f, ...scan]; // one group of six i32 locals, then the body
  const filterCode = [1, 4, 0x7f, ...filter];
  // prettier-ignore
  return Uint8Array.from([
    0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00,
    ...section(1, [2, 0x60, 6, ...Array(6).fill(0x7f), 1, 0x7f, 0x60, 4, ...Array(4).fill(0x7f), 1, 0x7f]),
    ...section(2, [1, ...name("env"), ...name("memory"), 0x02, 0x00, ...leb(pages)]),
    ...section(3, [2, 0, 1]),
    ...section(7, [1, ...name("scan"), 0x00, 0]),
    ...section(10, [2, ...leb(scanCode.length), ...scanCode, ...leb(filterCode.length), ...filterCode]),
  ]);
}

/** The parts of the WebAssembly API used here (the Node typings declare it as a namespace only). */
interface WasmApi {
  Memory: new (descriptor: { initial: number; maximum: number }) => { buffer: ArrayBuffer };
  Module: new (bytes: Uint8Array) => object;
  Instance: new (module: object, imports: object) => { exports: Record<string, unknown> };
}

/**
 * A scanner over the automaton's table, whose columns are the classes `classOf` gives ASCII
 * characters (control characters other than 0x9b included: 0x9b gets their class here), with
 * the filter bits of each row.
 */
export function createWasmScanner(delta: Int32Array, classOf: Uint8Array, rowFilters: Uint8Array): WasmScanner | undefined {
  try {
    const WebAssembly = (globalThis as unknown as { WebAssembly?: WasmApi }).WebAssembly;
    if (!WebAssembly) return undefined;
    const filters = 16 + 512 + 256;
    const layout: Layout = { classes: 16, kinds: 16 + 512, filters, table: (filters + rowFilters.length + 3) & ~3 };
    const inputBase = layout.table + delta.length * 4;
    const outBase = (inputBase + WASM_INPUT_CHARS + FILTER_LOOKAHEAD + 64 + 7) & ~7;
    const bytes = outBase + OUT_PAIRS * 8;
    const pages = Math.ceil(bytes / 65536);
    const memory = new WebAssembly.Memory({ initial: pages, maximum: pages });
    const instance = new WebAssembly.Instance(new WebAssembly.Module(moduleBytes(pages, layout)), { env: { memory } });
    const scanFn = instance.exports.scan as (input: number, len: number, state: number, out: number, outEnd: number, limit: number) => number;
    // Cells and classes in bytes: the loop adds them and loads, with no multiplication between.
    new Int32Array(memory.buffer, layout.table, delta.length).set(delta.map((v) => (v >= 0 ? v * 4 : -4 * (-v - 1) - 1)));
    const heap = Buffer.from(memory.buffer);
    const controlClass = classOf[27]!; // escape: no keyword has it (else this loop is not used)
    const classes = new Uint16Array(memory.buffer, layout.classes, 256);
    for (let c = 0; c < 256; c++) classes[c] = 4 * (c < 128 ? classOf[c]! : isControlByte(c) ? controlClass : 0);
    heap.set(BYTE_KINDS, layout.kinds);
    heap.set(rowFilters, layout.filters);
    const words = new Int32Array(memory.buffer);
    return {
      scan(text, from, to, state, hits) {
        const maxPairs = Math.min(OUT_PAIRS, hits.length >> 1);
        const length = Math.min(to - from, WASM_INPUT_CHARS);
        // Past what is scanned, as much as the filters look ahead (they read no further than `limit`).
        const limit = Math.min(to - from, length + FILTER_LOOKAHEAD);
        heap.write(text.slice(from, from + limit), inputBase, limit, "latin1");
        const count = scanFn(inputBase, length, state, outBase, outBase + maxPairs * 8, limit);
        hits.set(words.subarray(outBase >> 2, (outBase >> 2) + count * 2));
        const first = words[2]!;
        const last = words[3]!;
        return { count, next: from + words[1]!, state: words[0]!, firstControl: first < 0 ? -1 : from + first, lastControl: last < 0 ? -1 : from + last };
      },
    };
  } catch {
    return undefined;
  }
}
