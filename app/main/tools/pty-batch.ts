// Gathers a command's raw output bytes (node-pty's chunks, about 4 KB each on Linux) into batches
// and decodes each batch to text once, exactly as a streaming UTF-8 decoder would (a character
// split across chunks or batches is joined; invalid bytes become U+FFFD; an incomplete character
// at the very end is dropped, as node-pty's own decoding did). A batch that is plain
// ASCII without control characters is found by a SIMD scan (plain-scan-wasm.ts; a word-at-a-time
// JavaScript scan where WebAssembly SIMD is missing) and decoded by copying (latin1), and is reported `plain`: the text needs no sanitizing (terminal-text.ts) and
// is its own UTF-8 encoding. Owns one reused buffer of `capacity` bytes; a chunk larger than that
// is decoded on its own. Never throws.
import { StringDecoder } from "node:string_decoder";
import { isPlainBytesWasm } from "./plain-scan-wasm.ts";

export interface DecodedBatch {
  text: string;
  /** The text is ASCII without control characters other than tab and newline. */
  plain: boolean;
}

export class PtyBatch {
  /** Reused; allocated unpooled so that its offset is 0 and it can be read a 32-bit word at a time. */
  private readonly buffer: Buffer;
  private used = 0;
  private readonly decoder = new StringDecoder("utf8");
  /** Whether the decoder may hold the start of a character (then every batch goes through it). */
  private decoderMayHold = false;

  constructor(capacity: number) {
    this.buffer = Buffer.allocUnsafeSlow(capacity);
  }

  /** Bytes waiting for `take`. */
  get size(): number {
    return this.used;
  }

  /** Whether `chunk` still fits the batch (else take the batch first). */
  fits(chunk: Uint8Array): boolean {
    return this.used + chunk.length <= this.buffer.length;
  }

  /** Appends a chunk; one that does not fit (see `fits`) must be decoded with `decodeAlone`. */
  add(chunk: Uint8Array): void {
    this.buffer.set(chunk, this.used);
    this.used += chunk.length;
  }

  /** Decodes and empties the batch. */
  take(): DecodedBatch {
    const bytes = this.buffer.subarray(0, this.used);
    this.used = 0;
    return this.decode(bytes, !this.decoderMayHold && isPlain(bytes));
  }

  /** Decodes a chunk on its own (the batch must have been taken first, to keep the order). */
  decodeAlone(chunk: Uint8Array): DecodedBatch {
    const bytes = Buffer.from(chunk.buffer, chunk.byteOffset, chunk.length);
    return this.decode(bytes, !this.decoderMayHold && isPlain(bytes));
  }

  /** `plain`: the bytes were found plain (and the decoder holds nothing). */
  private decode(bytes: Buffer, plain: boolean): DecodedBatch {
    if (bytes.length === 0) return { text: "", plain: true };
    if (plain) return { text: bytes.toString("latin1"), plain: true };
    this.decoderMayHold = bytes[bytes.length - 1]! >= 0x80;
    return { text: this.decoder.write(bytes), plain: false };
  }
}

/** isPlainAscii, by the SIMD scan where there is one; bytes not on a 4-byte boundary are not plain without it. */
function isPlain(bytes: Buffer): boolean {
  return isPlainBytesWasm(bytes) ?? (bytes.byteOffset % 4 === 0 && isPlainAscii(bytes));
}

/**
 * Whether every byte is ASCII and none is a control character other than tab and newline (the
 * characters terminal-text.ts would change: C0 controls, CR, ESC, DEL). `bytes.byteOffset` must
 * be a multiple of 4.
 */
export function isPlainAscii(bytes: Uint8Array): boolean {
  const wordCount = bytes.length >>> 2;
  const words = new Uint32Array(bytes.buffer, bytes.byteOffset, wordCount);
  for (let i = 0; i < wordCount; i++) {
    const x = words[i]!;
    if (x & 0x80808080) return false;
    // Nonzero exactly when some byte is below 0x20, or is 0x7f (DEL): the classic "has less than"
    // and "has zero" bit tricks; newlines and tabs set it too, so those words are checked by byte.
    const del = x ^ 0x7f7f7f7f;
    if (((x - 0x20202020) & ~x & 0x80808080) | ((del - 0x01010101) & ~del & 0x80808080)) {
      const at = i * 4;
      if (!plainByte(bytes[at]!) || !plainByte(bytes[at + 1]!) || !plainByte(bytes[at + 2]!) || !plainByte(bytes[at + 3]!)) return false;
    }
  }
  for (let at = wordCount * 4; at < bytes.length; at++) if (!plainByte(bytes[at]!)) return false;
  return true;
}

function plainByte(b: number): boolean {
  return b < 0x7f && (b >= 0x20 || b === 0x09 || b === 0x0a);
}
