// The bash tool's "is this batch plain text?" check (pty-batch.ts) as a WebAssembly SIMD loop.
// Plain means every byte is ASCII and none is a control character other than tab and newline
// (what terminal-text.ts would change). The bytes are copied into the module's memory (one area
// per process: a WebAssembly memory reserves gigabytes of address space, so there is not one per
// command), 64 KiB at a time; the loop ORs a "bad byte" mask over 16 bytes at a time, with no
// branch but the loop's, and tests it once per window; the last length % 16 bytes are checked in
// JavaScript. On 100 MB of output the copy and the scan cost about a fifth of the 32-bit
// JavaScript loop (pty-batch.ts's isPlainAscii, kept for where WebAssembly SIMD is missing). The
// module is built here, byte by byte, as permissions/keyword-scan-wasm.ts is (no compiler in the
// build). Never throws.
//
//   plain(len) -> 1 if bytes [0, len - len % 16) hold no bad byte, else 0
//     acc = 0; for (p = 0; p < len & ~15; p += 16) { v = load(p);
//       acc |= (v >u 0x7e) | ((v <u 0x20) & ~((v == 9) | (v == 10))) }
//     return any_true(acc) ? 0 : 1

import { leb, name, section, sleb } from "./wasm-bytes.ts";

const PAGE = 65536;

// Opcodes by name (SIMD ones follow the 0xfd prefix).
const get = (i: number) => [0x20, i];
const set = (i: number) => [0x21, i];
const i32 = (n: number) => [0x41, ...sleb(n)];
const simd = (op: number) => [0xfd, ...leb(op)];
const splat8 = (n: number) => [...i32(n), ...simd(0x0f)]; // i8x16.splat
const [EQ8, LT8_U, GT8_U, ANDNOT, OR, ANY_TRUE] = [simd(0x23), simd(0x26), simd(0x28), simd(0x4f), simd(0x50), simd(0x53)];
const LOAD128 = [...simd(0x00), 4, 0]; // v128.load align=16, offset 0
const [BLOCK, LOOP, END, BR, BR_IF, SELECT] = [[0x02, 0x40], [0x03, 0x40], [0x0b], [0x0c], [0x0d], [0x1b]];
const [GE_U, ADD, AND] = [[0x4f], [0x6a], [0x71]];

function moduleBytes(pages: number): Uint8Array {
  // Params: 0 len. Locals: 1 p, 2 end (i32), 3 acc, 4 v (v128).
  const [LEN, P, END_AT, ACC, V] = [0, 1, 2, 3, 4];
  // prettier-ignore
  const body = [
    ...get(LEN), ...i32(-16), ...AND, ...set(END_AT),                    // end = len & ~15
    ...BLOCK, ...LOOP,
    ...get(P), ...get(END_AT), ...GE_U, ...BR_IF, 1,                     // while p < end
    ...get(P), ...LOAD128, ...set(V),
    ...get(ACC),
    ...get(V), ...splat8(0x7e), ...GT8_U, ...OR,                         // acc |= v >u 0x7e
    ...get(V), ...splat8(0x20), ...LT8_U,                                // (v <u 0x20)
    ...get(V), ...splat8(9), ...EQ8, ...get(V), ...splat8(10), ...EQ8, ...OR,
    ...ANDNOT, ...OR, ...set(ACC),                                       //   & ~(tab | newline)
    ...get(P), ...i32(16), ...ADD, ...set(P),
    ...BR, 0,
    ...END, ...END,
    ...i32(0), ...i32(1), ...get(ACC), ...ANY_TRUE, ...SELECT,           // any bad byte ? 0 : 1
  ];
  const code = [2, 2, 0x7f, 2, 0x7b, ...body, ...END]; // two i32 locals, two v128 locals
  // prettier-ignore
  return Uint8Array.from([
    0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00,
    ...section(1, [1, 0x60, 1, 0x7f, 1, 0x7f]),                          // (i32) -> i32
    ...section(2, [1, ...name("env"), ...name("memory"), 0x02, 0x00, ...leb(pages)]),
    ...section(3, [1, 0]),
    ...section(7, [1, ...name("plain"), 0x00, 0]),
    ...section(10, [1, ...leb(code.length), ...code]),
  ]);
}

/** The parts of the WebAssembly API used here (the Node typings declare it as a namespace only). */
interface WasmApi {
  Memory: new (descriptor: { initial: number; maximum: number }) => { buffer: ArrayBuffer };
  Module: new (bytes: Uint8Array) => object;
  Instance: new (module: object, imports: object) => { exports: Record<string, unknown> };
}

/** The one area: its bytes and the module's function; null once it could not be made. */
let area: { bytes: Buffer; plain: (length: number) => number } | null | undefined;

function makeArea(): typeof area {
  try {
    const WebAssembly = (globalThis as unknown as { WebAssembly?: WasmApi }).WebAssembly;
    if (!WebAssembly) return null;
    const memory = new WebAssembly.Memory({ initial: 1, maximum: 1 });
    const plain = new WebAssembly.Instance(new WebAssembly.Module(moduleBytes(1)), { env: { memory } }).exports.plain as (length: number) => number;
    return { bytes: Buffer.from(memory.buffer), plain };
  } catch {
    return null;
  }
}

/** Whether `bytes` are plain (see the header), or undefined where WebAssembly SIMD is unavailable. */
export function isPlainBytesWasm(bytes: Uint8Array): boolean | undefined {
  area ??= makeArea();
  if (!area) return undefined;
  const { bytes: heap, plain } = area;
  for (let from = 0; from < bytes.length; from += PAGE) {
    const length = Math.min(PAGE, bytes.length - from);
    heap.set(bytes.subarray(from, from + length), 0);
    if (plain(length) === 0) return false;
    for (let at = length & ~15; at < length; at++) {
      const b = heap[at]!;
      if (b >= 0x7f || (b < 0x20 && b !== 0x09 && b !== 0x0a)) return false;
    }
  }
  return true;
}
