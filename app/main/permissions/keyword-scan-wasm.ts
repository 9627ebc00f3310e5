// The keyword automaton's inner loop as a tiny WebAssembly module (built here, byte by byte, so
// there is no compiler in the build). The DFA table, the gram tables (keyword-grams.ts) and the
// text (as bytes: characters past 127 fall in class 0, as in the JavaScript loop) live in one
// WebAssembly memory; hits come back as (position after the keyword, encoded state) pairs. The
// loop passes over bytes that begin no keyword's gram (four positions at a time, their bytes out of
// two loads, two table loads per position), and runs the automaton (one dependent table load per
// byte) only from a gram's restart offset (OFFSETS, at most GRAM_OFFSET_LIMIT; keyword-grams.ts's
// restartOffsets) before it until it is back at its root: no keyword occurrence begins before
// that point with its gram at or after it, and one that began under way keeps the automaton off
// the root. What the hot loops do not use lives in memory (MEMORY), not in locals, so that the
// compiled loops keep their values in registers.
// Control characters (what terminal-text.ts sanitizes away, carriage returns and escapes included)
// are noted where they are (first and last), by the gram tables while passing and by their
// class (all transitions -1, see keyword-automaton.ts) in the automaton, so the bash tool learns
// whether a chunk is plain text without scanning it again. A hit whose row has filter bits
// (keyword-filters.ts) is reported only when `filter` says a rule may match there (`mayPass`, on
// the same bytes). A call ending while passing returns a negative state: the next copies up to
// GRAM_OFFSET_LIMIT bytes before its start, which the automaton has not seen, so a keyword cut by
// the call's end is found. `createWasmScanner` returns undefined where WebAssembly is unavailable;
// the caller then uses its JavaScript loop (the whole automaton). Never throws.
//
//   scan(in, len, state, out, outEnd, limit, start) -> hits    (in[0, start): the bytes copied before)
//     (the table's cells and CLASSES are kept in bytes, times 4: no multiplication on the chain
//     of dependent loads; hits and the final state go back in the automaton's units)
//     i = until = floor = 0; first = last = -1 (first, last, out and the limits kept in MEMORY)
//     loop: while i < len and (i < until or state != 0):                           (the automaton)
//             state = mem32[TABLE + state + CLASSES[in[i]]]
//             if state < 0: state = -state - 1
//                           if state == 0: note a control character at i (if i >= start)
//                           elif FILTERS[state] == 0 or filter(in, i+1, limit, FILTERS[state]):
//                             store (i+1, -state - 1) at out; out += 8; if out >= outEnd: i++, stop
//             i++
//           floor = i
//           while i < len:                                                          (passing)
//             if BUCKETS[in[i+j] | in[i+j+1] << 8] & THIRDS[in[i+j+2]] is 0 for j = 0..3: i += 4; continue
//             v = PAIRS[in[i] | in[i+1] << 8]
//             if v & CONTROL: note a control character at i (if i >= start)
//             back = GRAM_OFFSET_LIMIT if v & DIRECT, else OFFSETS[h] if v & TRIGRAM and the
//                    trigram bit of in[i..i+2] (hash h) is set, else none
//             if back: until = i + 1; i = max(i - back, floor); state = 0; continue loop
//             i++
//     mem32[0] = state; mem32[4] = i; mem32[8] = first; mem32[12] = last; mem32[16] = floor
//   filter(in, at, limit, bits) -> 1 when a rule may match after the keyword ending at `at`
//     (mayPass in keyword-filters.ts: the same checks over BYTE_KINDS, reading in[at, limit) only)
//   digit(in, at, limit) -> filter's DIGIT_VALUE check (digitValueAt in keyword-filters.ts, on bytes)

import {
  BYTE_KINDS,
  FILTER_ASSIGNMENT,
  FILTER_DIGIT_VALUE,
  FILTER_LOOKAHEAD,
  FILTER_TOKEN_AFTER,
  isControlByte,
  KIND_BEFORE_OPERATOR,
  KIND_BEFORE_VALUE,
  KIND_BEFORE_VALUE_OR_OPERATOR,
  KIND_OPERATOR,
  KIND_TOKEN,
  KIND_VALUE,
} from "./keyword-filters.ts";
import { leb, name, section, sleb } from "../tools/wasm-bytes.ts";
import { GRAM_CONTROL, GRAM_DIRECT, GRAM_OFFSET_LIMIT, GRAM_TRIGRAM, type GramTables, TRIGRAM_HASH_BITS, TRIGRAM_HASH_MULTIPLIER } from "./keyword-grams.ts";

/** Characters copied into WebAssembly memory per call. */
export const WASM_INPUT_CHARS = 64 * 1024;
const OUT_PAIRS = 4096;

export interface ScanStep {
  /** Hits written. */
  count: number;
  /** Where the scan stopped (early when the hit buffer filled). */
  next: number;
  /** What to resume from there (pass it back to `scan`): the automaton's state, or, negative, how far back it may restart. */
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

/**
 * The module memory's first words: what a call leaves (state, position, first and last control
 * positions, floor) and what it keeps there while it runs (where the next hit goes, where hits
 * end, `out`, `limit`, `start`). The tables follow from `end` on.
 */
const MEMORY = { state: 0, i: 4, first: 8, last: 12, floor: 16, o: 20, outEnd: 24, out: 28, limit: 32, start: 36, end: 64 };

/** Where things are in the module's memory (after MEMORY's words). */
interface Layout {
  /** 256 16-bit cells: each byte value's class in the table (0 past 127 but for control characters), times 4. */
  classes: number;
  /** 256 bytes: each byte value's BYTE_KINDS bits. */
  kinds: number;
  /** One byte per table cell: the filter bits of the row it starts (read at row starts only). */
  filters: number;
  table: number;
  /** 65,536 bytes: keyword-grams.ts's PAIRS. */
  pairs: number;
  /** 65,536 bytes: keyword-grams.ts's BUCKETS. */
  buckets: number;
  /** 256 bytes: keyword-grams.ts's THIRDS. */
  thirds: number;
  /** keyword-grams.ts's trigram bitmap. */
  trigrams: number;
  /** keyword-grams.ts's restart offsets, one byte per trigram hash. */
  offsets: number;
}

// Stryker disable all: the module's bytes (the opcodes and moduleBytes) are not mutated (decided
// by reading them, 2026-12-03). What they encode is numbers (opcodes, immediates, offsets), which
// Stryker does not mutate. What it can mutate here, an instruction group or an array emptied, a
// helper made `() => undefined`, a name made "", leaves a module that does not validate or
// instantiate (createWasmScanner then returns undefined and the JavaScript loop takes over, which
// the tests that require WebAssembly here notice) or one without `scan`: a slow run of the
// keyword tests per mutant to learn that a broken module is broken. The two that may still
// validate, `32 - TRIGRAM_HASH_BITS` and `exitDepth + 4` with the other operator, were made by
// hand: keyword-scan.test.ts and redaction-prefilter.test.ts fail with each (9 and 2 tests), as
// they compare the loop's hits, states and controls with the JavaScript loop's. createWasmScanner,
// below, is mutated.
// WebAssembly opcodes, by name. The code below is laid out one instruction group per line with
// its meaning beside it, so the formatter leaves it alone (prettier-ignore).
const get = (i: number) => [0x20, i];
const set = (i: number) => [0x21, i];
const i32 = (n: number) => [0x41, ...sleb(n)];
const load8 = (offset: number) => [0x2d, 0, ...leb(offset)];
const [BLOCK, LOOP, IF, ELSE, END, BR, BR_IF, RETURN, CALL] = [[0x02, 0x40], [0x03, 0x40], [0x04, 0x40], [0x05], [0x0b], [0x0c], [0x0d], [0x0f], [0x10]];
const [EQZ, LT_S, GE_U, GT_U, ADD, SUB, AND, SHL] = [[0x45], [0x48], [0x4f], [0x4b], [0x6a], [0x6b], [0x71], [0x74]];
const [EQ, NE, LT_U, LE_U, OR, SELECT] = [[0x46], [0x47], [0x49], [0x4d], [0x72], [0x1b]];

function moduleBytes(pages: number, at: Layout): Uint8Array {
  // scan. Params: 0 in, 1 len, 2 state, 3 out, 4 outEnd, 5 limit, 6 start (the last four copied to
  // MEMORY at entry). Locals: 7 i, 8 p (in + i), 9 floor, 10 v, 11 until, 12 h, 13 stop, 14 back,
  // 15 w, 16 w2, 17 bits.
  const [I, P, FLOOR, V, UNTIL, H, STOP, BACK, W, W2, BITS] = [7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17];
  // What the hot loops do not use lives in memory (see MEMORY), so that the compiled loops keep
  // theirs in registers: with every value a local, the automaton's loop spilled three per step.
  const load = (slot: number) => [...i32(0), 0x28, 2, ...leb(slot)];
  const store = (slot: number, value: number[]) => [...i32(0), ...value, 0x36, 2, ...leb(slot)];
  // prettier-ignore
  const bucket = (pair: number[], third: number[]) => [...pair, ...load8(at.buckets), ...third, ...load8(at.thirds), ...AND]; // BUCKETS[pair] & THIRDS[third]
  const [SHR_U] = [[0x76]];
  // The four positions' pairs and third bytes out of two loads, w = in[i..i+3] and w2 = in[i+2..i+5]
  // (fewer loads than one per byte: the loop is bound by them).
  // prettier-ignore
  const buckets4 = [
    ...get(P), 0x28, 0, 0, ...set(W), ...get(P), 0x28, 0, 2, ...set(W2),
    ...bucket([...get(W), ...i32(0xffff), ...AND], [...get(W2), ...i32(0xff), ...AND]), // pair in[i..i+1], third in[i+2]
    ...bucket([...get(W), ...i32(8), ...SHR_U, ...i32(0xffff), ...AND], [...get(W), ...i32(24), ...SHR_U]), ...OR, // in[i+1..i+2], in[i+3]
    ...bucket([...get(W), ...i32(16), ...SHR_U], [...get(W2), ...i32(16), ...SHR_U, ...i32(0xff), ...AND]), ...OR, // in[i+2..i+3], in[i+4]
    ...bucket([...get(W2), ...i32(8), ...SHR_U, ...i32(0xffff), ...AND], [...get(W2), ...i32(24), ...SHR_U]), ...OR, // in[i+3..i+4], in[i+5]
  ];
  const pos = [...get(I), ...i32(1), ...ADD]; // i + 1: after the character
  // prettier-ignore
  const notControl = [ // a control character at i (from `start` on: before it, the last call saw it)
    ...get(I), ...load(MEMORY.start), ...GE_U, ...IF,
    ...load(MEMORY.first), ...i32(0), ...LT_S, ...IF, ...store(MEMORY.first, get(I)), ...END, // if first < 0: first = i
    ...store(MEMORY.last, get(I)), // last = i
    ...END,
  ];
  // One automaton step at i; exitDepth: how far out $done is from where this is placed.
  const step = (exitDepth: number) =>
    // prettier-ignore
    [
      ...get(P), ...load8(0), ...i32(1), ...SHL, 0x2f, 1, ...leb(at.classes), ...get(2), ...ADD, 0x28, 2, ...leb(at.table), ...set(2), // state = table[class + state] (both in bytes)
      ...get(2), ...i32(0), ...LT_S, ...IF, // if state < 0
      ...i32(-1), ...get(2), ...SUB, ...set(2), //   state = -1 - state
      ...get(2), ...EQZ, ...IF, ...notControl, //   if state == 0: a control character
      ...ELSE,
      ...get(2), ...i32(2), 0x76, ...load8(at.filters), ...set(BITS), //     bits = filters[state / 4]
      ...get(BITS), ...EQZ, 0x04, 0x7f, ...i32(1), ...ELSE, ...get(0), ...pos, ...load(MEMORY.limit), ...get(BITS), ...CALL, 1, ...END, //     (bits == 0 or filter(in, i + 1, limit, bits))
      ...IF, //     if so: report
      ...load(MEMORY.o), ...pos, 0x36, 2, 0, //       store(o, i + 1)
      ...load(MEMORY.o), ...i32(-1), ...get(2), ...i32(2), 0x76, ...SUB, 0x36, 2, 4, //       store(o + 4, -1 - state / 4)
      ...store(MEMORY.o, [...load(MEMORY.o), ...i32(8), ...ADD]), //       o += 8
      ...load(MEMORY.o), ...load(MEMORY.outEnd), ...GE_U, ...IF, ...pos, ...set(I), ...BR, exitDepth + 4, ...END, //       if o >= outEnd: i = i + 1, br $done
      ...END,
      ...END,
      ...END, // end if state < 0
    ];
  // prettier-ignore
  const trigramBit = [ // the trigram bitmap's bit for in[i..i+2], letters folded
    ...get(P), 0x28, 0, 0, ...i32(0x20202020), 0x72, ...i32(0xffffff), ...AND, ...i32(TRIGRAM_HASH_MULTIPLIER), 0x6c, ...i32(32 - TRIGRAM_HASH_BITS), 0x76, 0x22, H,
    ...i32(3), 0x76, ...load8(at.trigrams), ...get(H), ...i32(7), ...AND, 0x76, ...i32(1), ...AND,
  ];
  // prettier-ignore
  const scan = [
    ...get(2), ...i32(2), ...SHL, ...set(2), // the table's cells in bytes
    ...store(MEMORY.o, get(3)), ...store(MEMORY.out, get(3)), ...store(MEMORY.outEnd, get(4)), ...store(MEMORY.limit, get(5)), ...store(MEMORY.start, get(6)),
    ...store(MEMORY.first, i32(-1)), ...store(MEMORY.last, i32(-1)),
    ...BLOCK, // $done
    ...LOOP, //   $main
    ...BLOCK, //     $skip
    ...LOOP, //       $steps: the automaton, until it is back at the root past `until`
    ...get(I), ...get(1), ...GE_U, ...IF, ...get(I), ...set(FLOOR), ...BR, 4, ...END, // if i >= len: floor = i, br $done
    ...get(I), ...get(UNTIL), ...GE_U, ...get(2), ...EQZ, ...AND, ...BR_IF, 1, // if i >= until and state == 0: br $skip
    ...get(0), ...get(I), ...ADD, ...set(P),
    ...step(3),
    ...get(I), ...i32(1), ...ADD, ...set(I), // i++
    ...BR, 0,
    ...END,
    ...END,
    ...get(I), ...set(FLOOR), // the automaton has seen everything before floor
    ...LOOP, //     $pass: over bytes that begin no gram
    ...get(I), ...get(1), ...GE_U, ...BR_IF, 2, // if i >= len: br $done
    ...get(0), ...get(I), ...ADD, ...set(P),
    ...get(1), ...set(STOP),
    ...get(I), ...i32(4), ...ADD, ...get(1), 0x4d, ...IF, // if i + 4 <= len and no position of in[i..i+3] may begin a gram: i += 4
    ...buckets4,
    ...EQZ, ...IF, ...get(I), ...i32(4), ...ADD, ...set(I), ...BR, 2, ...END,
    ...get(I), ...i32(4), ...ADD, ...set(STOP), // else look at these four one by one
    ...END,
    ...LOOP, //       $one: position i
    ...get(0), ...get(I), ...ADD, ...set(P),
    ...get(P), 0x2f, 0, 0, ...load8(at.pairs), 0x22, V, ...IF, // v = PAIRS[in[i] | in[i+1] << 8]; if v != 0
    ...get(V), ...i32(GRAM_CONTROL), ...AND, ...IF, ...notControl, ...END,
    // back = GRAM_OFFSET_LIMIT for a two-character keyword, OFFSETS[h] for a trigram whose bit is set, else -1
    ...get(V), ...i32(GRAM_DIRECT), ...AND, 0x04, 0x7f, ...i32(GRAM_OFFSET_LIMIT), ...ELSE,
    ...get(V), ...i32(GRAM_TRIGRAM), ...AND, 0x04, 0x7f, ...trigramBit, 0x04, 0x7f, ...get(H), ...load8(at.offsets), ...ELSE, ...i32(-1), ...END, ...ELSE, ...i32(-1), ...END,
    ...END, 0x22, BACK, ...i32(0), 0x4e, // (back >= 0)
    ...IF, //       a gram: the automaton from `back` before it (not before floor) through i
    ...get(I), ...i32(1), ...ADD, ...set(UNTIL),
    ...get(I), ...get(BACK), ...SUB, ...get(FLOOR), ...get(I), ...get(BACK), ...SUB, ...get(FLOOR), 0x4e, 0x1b, ...set(I), // i = max(i - back, floor)
    ...i32(0), ...set(2),
    ...BR, 4, // br $main
    ...END,
    ...END,
    ...get(I), ...i32(1), ...ADD, ...set(I), // i++
    ...get(I), ...get(STOP), ...LT_U, ...BR_IF, 0, // the next of the four
    ...END,
    ...BR, 0,
    ...END,
    ...END,
    ...END,
    ...i32(0), ...get(2), ...i32(2), 0x76, 0x36, 2, 0, // mem[0] = state / 4
    ...i32(4), ...get(I), 0x36, 2, 0, // mem[4] = i
    ...i32(16), ...get(FLOOR), 0x36, 2, 0, // mem[16] = floor
    ...load(MEMORY.o), ...load(MEMORY.out), ...SUB, ...i32(3), 0x76, // (o - out) >> 3
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
    ...get(3), ...i32(FILTER_DIGIT_VALUE), ...AND, ...IF, ...get(0), ...get(1), ...get(2), ...CALL, 2, ...IF, ...i32(1), ...RETURN, ...END, ...END,
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
  // digit (digitValueAt of keyword-filters.ts on bytes, `past` true). Params: 0 in, 1 at, 2 limit.
  // Locals: 3 p (then q), 4 end, 5 gap end, 7 s (f, then where the value starts), 8 e, 9 c, 10 digit, 11 op.
  const [DP, DEND, DLAST, DS, DE, DC, DDIGIT, DOP] = [3, 4, 5, 7, 8, 9, 10, 11];
  const kindIs = (local: number, kind: number) => [...get(local), ...load8(at.kinds), ...i32(kind), ...AND];
  const ret = (n: number) => [...IF, ...i32(n), ...RETURN, ...END];
  // prettier-ignore
  const digit = [
    ...get(0), ...get(1), ...ADD, ...set(DP), ...get(0), ...get(2), ...ADD, ...set(DEND), // p = in + at; end = in + limit
    ...get(DP), ...i32(24), ...ADD, ...get(DEND), ...GT_U, ...ret(1), // the gap may reach past the limit: pass
    ...get(DP), ...i32(24), ...ADD, ...set(DLAST),
    ...BLOCK, ...LOOP, // over the gap to the operator
    ...get(DP), ...get(DLAST), ...GE_U, ...ret(0),
    ...get(DP), ...load8(0), ...set(DC), ...kindIs(DC, KIND_BEFORE_OPERATOR), ...EQZ, ...BR_IF, 1,
    ...get(DP), ...i32(1), ...ADD, ...set(DP),
    ...BR, 0,
    ...END, ...END,
    ...get(DP), ...load8(0), ...set(DOP),
    ...get(DOP), ...i32(124), ...EQ, ...get(DOP), ...i32(63), ...EQ, ...OR, ...IF, // | and ? only as || and ?=
    ...get(DP), ...i32(1), ...ADD, ...get(DEND), ...GE_U, ...ret(1),
    ...get(DP), ...load8(1), ...i32(124), ...i32(61), ...get(DOP), ...i32(124), ...EQ, ...SELECT, ...NE, ...ret(0),
    ...ELSE,
    ...kindIs(DOP, KIND_OPERATOR), ...EQZ, ...ret(0),
    ...END,
    ...get(DP), ...i32(1), ...ADD, ...set(DS),
    ...BLOCK, ...LOOP, // f: the first character past the operator's first that is no operator, quote, blank or =
    ...get(DS), ...get(DEND), ...GE_U, ...get(DS), ...get(DP), ...SUB, ...i32(1024), ...GT_U, ...OR, ...ret(1),
    ...get(DS), ...load8(0), ...set(DC), ...kindIs(DC, KIND_BEFORE_VALUE_OR_OPERATOR), ...EQZ, ...BR_IF, 1,
    ...get(DS), ...i32(1), ...ADD, ...set(DS),
    ...BR, 0,
    ...END, ...END,
    ...kindIs(DC, KIND_VALUE), ...EQZ, ...ret(0), // it begins the value's run
    ...get(DS), ...set(DE), // e = f
    ...BLOCK, ...LOOP, // start: back over = signs, not to the operator's first character
    ...get(DS), ...get(DP), ...i32(1), ...ADD, ...LE_U, ...BR_IF, 1,
    ...get(DS), ...i32(1), ...SUB, ...load8(0), ...i32(61), ...NE, ...BR_IF, 1,
    ...get(DS), ...i32(1), ...SUB, ...set(DS),
    ...BR, 0,
    ...END, ...END,
    ...get(DS), ...get(DP), ...i32(9), ...ADD, ...GT_U, ...ret(0), // the value starts at most 9 after the operator's first character
    ...i32(0), ...set(DDIGIT),
    ...LOOP, // the run from f: 10 or more from start, with a digit
    ...get(DE), ...get(DEND), ...GE_U, ...ret(1),
    ...get(DE), ...load8(0), ...set(DC), ...kindIs(DC, KIND_VALUE), ...EQZ, ...ret(0),
    ...get(DC), ...i32(48), ...SUB, ...i32(10), ...LT_U, ...IF, ...i32(1), ...set(DDIGIT), ...END,
    ...get(DDIGIT), ...get(DE), ...i32(1), ...ADD, ...get(DS), ...SUB, ...i32(10), ...GE_U, ...AND, ...ret(1),
    ...get(DE), ...get(DS), ...SUB, ...i32(1024), ...GE_U, ...ret(1),
    ...get(DE), ...i32(1), ...ADD, ...set(DE),
    ...BR, 0,
    ...END,
    ...i32(0),
    ...END,
  ];
  const scanCode = [1, 11, 0x7f, ...scan]; // one group of eleven i32 locals, then the body
  const filterCode = [1, 4, 0x7f, ...filter];
  const digitCode = [1, 9, 0x7f, ...digit];
  // prettier-ignore
  return Uint8Array.from([
    0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00,
    ...section(1, [3, 0x60, 7, ...Array(7).fill(0x7f), 1, 0x7f, 0x60, 4, ...Array(4).fill(0x7f), 1, 0x7f, 0x60, 3, ...Array(3).fill(0x7f), 1, 0x7f]),
    ...section(2, [1, ...name("env"), ...name("memory"), 0x02, 0x00, ...leb(pages)]),
    ...section(3, [3, 0, 1, 2]),
    ...section(7, [1, ...name("scan"), 0x00, 0]),
    ...section(10, [3, ...leb(scanCode.length), ...scanCode, ...leb(filterCode.length), ...filterCode, ...leb(digitCode.length), ...digitCode]),
  ]);
}
// Stryker restore all

/** The parts of the WebAssembly API used here (the Node typings declare it as a namespace only). */
interface WasmApi {
  Memory: new (descriptor: { initial: number; maximum: number }) => { buffer: ArrayBuffer };
  Module: new (bytes: Uint8Array) => object;
  Instance: new (module: object, imports: object) => { exports: Record<string, unknown> };
}

/**
 * A scanner over the automaton's table, whose columns are the classes `classOf` gives ASCII
 * characters (control characters other than 0x9b included: 0x9b gets their class here), with
 * the filter bits of each row and the keywords' gram tables (keyword-grams.ts).
 */
export function createWasmScanner(delta: Int32Array, classOf: Uint8Array, rowFilters: Uint8Array, grams: GramTables): WasmScanner | undefined {
  try {
    const WebAssembly = (globalThis as unknown as { WebAssembly?: WasmApi }).WebAssembly;
    if (!WebAssembly) return undefined;
    const thirds = MEMORY.end + 512 + 256;
    const filters = thirds + 256;
    const pairs = (filters + rowFilters.length + 3) & ~3;
    const buckets = pairs + grams.pairs.length;
    const trigrams = buckets + grams.buckets.length;
    const offsets = trigrams + grams.trigrams.length;
    const layout: Layout = { classes: MEMORY.end, kinds: MEMORY.end + 512, thirds, filters, pairs, buckets, trigrams, offsets, table: (offsets + grams.offsets.length + 3) & ~3 };
    const inputBase = layout.table + delta.length * 4;
    const outBase = (inputBase + GRAM_OFFSET_LIMIT + WASM_INPUT_CHARS + FILTER_LOOKAHEAD + 64 + 7) & ~7;
    const bytes = outBase + OUT_PAIRS * 8;
    const pages = Math.ceil(bytes / 65536);
    const memory = new WebAssembly.Memory({ initial: pages, maximum: pages });
    const instance = new WebAssembly.Instance(new WebAssembly.Module(moduleBytes(pages, layout)), { env: { memory } });
    const scanFn = instance.exports.scan as (input: number, len: number, state: number, out: number, outEnd: number, limit: number, start: number) => number;
    // Cells and classes in bytes: the loop adds them and loads, with no multiplication between.
    new Int32Array(memory.buffer, layout.table, delta.length).set(delta.map((v) => (v >= 0 ? v * 4 : -4 * (-v - 1) - 1)));
    const heap = Buffer.from(memory.buffer);
    const controlClass = classOf[27]!; // escape: no keyword has it (else this loop is not used)
    const classes = new Uint16Array(memory.buffer, layout.classes, 256);
    for (let c = 0; c < 256; c++) classes[c] = 4 * (c < 128 ? classOf[c]! : isControlByte(c) ? controlClass : 0);
    heap.set(BYTE_KINDS, layout.kinds);
    heap.set(rowFilters, layout.filters);
    heap.set(grams.pairs, layout.pairs);
    heap.set(grams.buckets, layout.buckets);
    heap.set(grams.thirds, layout.thirds);
    heap.set(grams.trigrams, layout.trigrams);
    heap.set(grams.offsets, layout.offsets);
    const words = new Int32Array(memory.buffer);
    return {
      scan(text, from, to, state, hits) {
        // A negative state: the loop was passing over bytes, and the automaton may restart up to
        // -state - 1 characters before `from` (what it has not seen), copied in front.
        const back = state < 0 ? Math.min(-state - 1, from) : 0;
        const base = from - back;
        const maxPairs = Math.min(OUT_PAIRS, hits.length >> 1);
        const length = back + Math.min(to - from, WASM_INPUT_CHARS);
        // Past what is scanned, as much as the filters look ahead (they read no further than `limit`).
        const limit = Math.min(to - base, length + FILTER_LOOKAHEAD);
        heap.write(text.slice(base, base + limit), inputBase, limit, "latin1");
        // What the gram loads read past the text: a token character, so that a keyword reported only
        // before one (keyword-grams.ts) is still found at the end, where the filters pass it.
        // (Four stores: Buffer.fill's argument checks cost more than the scan of a short call.)
        const past = inputBase + limit;
        heap[past] = heap[past + 1] = heap[past + 2] = heap[past + 3] = 0x41;
        const count = scanFn(inputBase, length, Math.max(state, 0), outBase, outBase + maxPairs * 8, limit, back);
        hits.set(words.subarray(outBase >> 2, (outBase >> 2) + count * 2));
        if (back > 0) for (let h = 0; h < count * 2; h += 2) hits[h]! -= back;
        const [end, next, first, last, floor] = [words[0]!, base + words[1]!, words[2]!, words[3]!, base + words[4]!];
        return {
          count,
          next,
          state: end !== 0 ? end : -Math.min(next - floor, GRAM_OFFSET_LIMIT) - 1,
          firstControl: first < 0 ? -1 : base + first,
          lastControl: last < 0 ? -1 : base + last,
        };
      },
    };
  } catch {
    return undefined;
  }
}
