// The few pieces of the WebAssembly binary format that the hand-built modules (plain-scan-wasm.ts,
// permissions/keyword-scan-wasm.ts) are written with: LEB128 numbers, a section, a name. Pure.

/** An unsigned LEB128 number. */
export function leb(n: number): number[] {
  const out: number[] = [];
  for (;;) {
    const byte = n & 0x7f;
    n >>>= 7;
    if (n === 0) return [...out, byte];
    out.push(byte | 0x80);
  }
}

/** A signed LEB128 number. */
export function sleb(n: number): number[] {
  const out: number[] = [];
  for (;;) {
    const byte = n & 0x7f;
    n >>= 7;
    if ((n === 0 && (byte & 0x40) === 0) || (n === -1 && (byte & 0x40) !== 0)) return [...out, byte];
    out.push(byte | 0x80);
  }
}

/** A section: its id, its body's length, its body. */
export const section = (id: number, body: number[]): number[] => [id, ...leb(body.length), ...body];

/** A name: its length, its (ASCII) characters. */
export const name = (s: string): number[] => [...leb(s.length), ...[...s].map((c) => c.charCodeAt(0))];
