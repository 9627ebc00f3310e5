// The keyword automaton's inner loop as a tiny WebAssembly function (built here, byte by byte, so
// there is no compiler in the build): one table load per character at native speed, several
// times what the same loop does in JavaScript. The DFA table and the text (as bytes: characters
// past 127 fall in class 0, as in the JavaScript loop) live in one WebAssembly memory; hits come back as
// (position after the keyword, encoded state) pairs. The same pass notes where the first and last
// control characters are (CONTROL_BYTES: what terminal-text.ts sanitizes away, carriage returns and
// escapes included), so the bash tool learns whether a chunk is plain text without scanning it
// again. `createWasmScanner` returns undefined where WebAssembly is unavailable; the caller then
// uses its JavaScript loop. Never throws.
//
//   scan(in, len, state, out, outEnd) -> hits
//     first = last = -1
//     for i in 0..len: c = mem8[in+i]
//                      if mem8[CONTROLS + c]: (first < 0: first = i); last = i
//                      state = mem32[TABLE + (state + CLASSES[c]) * 4]      (the character's class)
//                      if state < 0: store (i+1, state) at out; out += 8; state = -state - 1
//                                    if out >= outEnd: break
//     mem32[0] = state; mem32[4] = i; mem32[8] = first; mem32[12] = last; return hits written

/** 256 flags, one per byte value: whether it is a control character (see CONTROL_BYTES). */
const CONTROLS = 16;
/** 256 bytes, one per byte value: its class in the table (0 past 127). */
const CLASSES = CONTROLS + 256;
/** Where the table starts; bytes 0..15 hold the final state, position and control positions of the last call. */
const TABLE = CLASSES + 256;

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

function moduleBytes(pages: number): Uint8Array {
  // Params: 0 in, 1 len, 2 state, 3 out, 4 outEnd. Locals: 5 i, 6 c, 7 o, 8 first, 9 last.
  const get = (i: number) => [0x20, i];
  const set = (i: number) => [0x21, i];
  const body = [
    ...get(3), ...set(7),
    0x41, ...sleb(-1), ...set(8), 0x41, ...sleb(-1), ...set(9), // first = last = -1
    0x02, 0x40, // block $done
    0x03, 0x40, //   loop $next
    ...get(5), ...get(1), 0x4f, 0x0d, 1, // if i >= len: br $done
    ...get(0), ...get(5), 0x6a, 0x2d, 0, 0, ...set(6), // c = load8_u(in + i)
    ...get(6), 0x2d, 0, ...leb(CONTROLS), 0x04, 0x40, // if load8_u(CONTROLS + c)
    ...get(8), 0x41, 0, 0x48, 0x04, 0x40, ...get(5), ...set(8), 0x0b, //   if first < 0: first = i
    ...get(5), ...set(9), //   last = i
    0x0b, // end if
    ...get(2), ...get(6), 0x2d, 0, ...leb(CLASSES), 0x6a, 0x41, 2, 0x74, 0x28, 2, ...leb(TABLE), ...set(2), // state = load((state + load8_u(CLASSES + c)) << 2, offset TABLE)
    ...get(5), 0x41, 1, 0x6a, ...set(5), // i++
    ...get(2), 0x41, 0, 0x48, 0x04, 0x40, // if state < 0
    ...get(7), ...get(5), 0x36, 2, 0, //   store(o, i)
    ...get(7), ...get(2), 0x36, 2, 4, //   store(o + 4, state)
    ...get(7), 0x41, 8, 0x6a, ...set(7), //   o += 8
    0x41, ...sleb(-1), ...get(2), 0x6b, ...set(2), //   state = -1 - state
    ...get(7), ...get(4), 0x4f, 0x0d, 2, //   if o >= outEnd: br $done
    0x0b, // end if
    0x0c, 0, // br $next
    0x0b, // end loop
    0x0b, // end block
    0x41, 0, ...get(2), 0x36, 2, 0, // mem[0] = state
    0x41, 4, ...get(5), 0x36, 2, 0, // mem[4] = i
    0x41, 8, ...get(8), 0x36, 2, 0, // mem[8] = first
    0x41, 12, ...get(9), 0x36, 2, 0, // mem[12] = last
    ...get(7), ...get(3), 0x6b, 0x41, 3, 0x76, // (o - out) >> 3
    0x0b,
  ];
  const code = [1, 5, 0x7f, ...body]; // one group of five i32 locals, then the body
  return Uint8Array.from([
    0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00,
    ...section(1, [1, 0x60, 5, 0x7f, 0x7f, 0x7f, 0x7f, 0x7f, 1, 0x7f]),
    ...section(2, [1, ...name("env"), ...name("memory"), 0x02, 0x00, ...leb(pages)]),
    ...section(3, [1, 0]),
    ...section(7, [1, ...name("scan"), 0x00, 0]),
    ...section(10, [1, ...leb(code.length), ...code]),
  ]);
}

/** The parts of the WebAssembly API used here (the Node typings declare it as a namespace only). */
interface WasmApi {
  Memory: new (descriptor: { initial: number; maximum: number }) => { buffer: ArrayBuffer };
  Module: new (bytes: Uint8Array) => object;
  Instance: new (module: object, imports: object) => { exports: Record<string, unknown> };
}

/** A scanner over the automaton's table, whose columns are the classes `classOf` gives ASCII characters. */
export function createWasmScanner(delta: Int32Array, classOf: Uint8Array): WasmScanner | undefined {
  try {
    const WebAssembly = (globalThis as unknown as { WebAssembly?: WasmApi }).WebAssembly;
    if (!WebAssembly) return undefined;
    const inputBase = TABLE + delta.length * 4;
    const outBase = inputBase + WASM_INPUT_CHARS;
    const bytes = outBase + OUT_PAIRS * 8;
    const pages = Math.ceil(bytes / 65536);
    const memory = new WebAssembly.Memory({ initial: pages, maximum: pages });
    const instance = new WebAssembly.Instance(new WebAssembly.Module(moduleBytes(pages)), { env: { memory } });
    const scanFn = instance.exports.scan as (input: number, len: number, state: number, out: number, outEnd: number) => number;
    new Int32Array(memory.buffer, TABLE, delta.length).set(delta);
    const heap = Buffer.from(memory.buffer);
    for (let c = 0; c < 256; c++) heap[CONTROLS + c] = isControlByte(c) ? 1 : 0;
    for (let c = 0; c < 256; c++) heap[CLASSES + c] = c < 128 ? classOf[c]! : 0;
    const words = new Int32Array(memory.buffer);
    return {
      scan(text, from, to, state, hits) {
        const maxPairs = Math.min(OUT_PAIRS, hits.length >> 1);
        const length = Math.min(to - from, WASM_INPUT_CHARS);
        heap.write(text.slice(from, from + length), inputBase, length, "latin1");
        const count = scanFn(inputBase, length, state, outBase, outBase + maxPairs * 8);
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
