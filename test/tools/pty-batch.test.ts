// The bash tool's byte path (pty-batch.ts, OutputCollector's batching): decoding chunks split
// anywhere gives what one streaming UTF-8 decoder gives; the plain-ASCII scan finds every byte that
// sanitizing would change; the model's text, counts and saved file do not depend on how the bytes
// were chunked.
import { readFileSync } from "node:fs";
import path from "node:path";
import { StringDecoder } from "node:string_decoder";
import { afterEach, describe, expect, it } from "vitest";
import { BATCH_BYTES, OutputCollector } from "../../app/main/tools/bash-output.ts";
import { isPlainBytesWasm } from "../../app/main/tools/plain-scan-wasm.ts";
import { isPlainAscii, PtyBatch } from "../../app/main/tools/pty-batch.ts";
import { hasControlChars, sanitizeTerminalText } from "../../app/main/tools/terminal-text.ts";
import { tempDir } from "./helpers.ts";

/** A buffer at offset 0 of its own memory (aligned for the word scan). */
function aligned(bytes: Uint8Array): Buffer {
  const out = Buffer.allocUnsafeSlow(bytes.length);
  out.set(bytes);
  return out;
}

/** Deterministic pseudo-random numbers (a test must not depend on luck). */
function random(seed: number): () => number {
  let s = seed;
  return () => {
    s = (s * 1103515245 + 12345) & 0x7fffffff;
    return s / 0x80000000;
  };
}

function chunked(bytes: Buffer, next: () => number, maxChunk: number): Buffer[] {
  const chunks: Buffer[] = [];
  for (let at = 0; at < bytes.length;) {
    const size = 1 + Math.floor(next() * maxChunk);
    chunks.push(bytes.subarray(at, at + size));
    at += size;
  }
  return chunks;
}

describe("isPlainAscii", () => {
  it("accepts printable ASCII, tabs and newlines at any length", () => {
    for (let length = 0; length < 12; length++) {
      expect(isPlainAscii(aligned(Buffer.from("a\tb\nc ~".repeat(2).slice(0, length))))).toBe(true);
    }
  });

  it("rejects every byte sanitizing would change, and every non-ASCII byte, at every position", () => {
    for (let byte = 0; byte < 256; byte++) {
      const changes = hasControlChars(String.fromCharCode(byte)) || byte >= 0x80;
      for (let at = 0; at < 9; at++) {
        const bytes = Buffer.from("xxxxxxxxx");
        bytes[at] = byte;
        expect(isPlainAscii(aligned(bytes)), `byte ${byte} at ${at}`).toBe(!changes);
      }
    }
  });
});

describe("isPlainBytesWasm (the SIMD scan)", () => {
  it("is available here (Node and Electron both have WebAssembly SIMD)", () => {
    expect(isPlainBytesWasm(Buffer.from("ok\n"))).toBe(true);
  });

  it("agrees with isPlainAscii for every byte value at every position of the vector and the tail", () => {
    for (let length = 1; length <= 40; length++) {
      for (let at = 0; at < length; at++) {
        for (let byte = 0; byte < 256; byte++) {
          const bytes = aligned(Buffer.alloc(length, 0x61));
          bytes[at] = byte;
          if (isPlainBytesWasm(bytes) !== isPlainAscii(bytes)) expect.fail(`byte ${byte} at ${at} of ${length}`);
        }
      }
    }
  });

  it("finds a bad byte in any 64 KiB window of a larger input, at any offset, and none in the last window's left-overs", () => {
    const size = 3 * 65536 + 21;
    const text = Buffer.alloc(size + 3, "plain text\tand lines\n");
    for (const offset of [0, 1, 3]) {
      const bytes = text.subarray(offset, offset + size);
      expect(isPlainBytesWasm(bytes)).toBe(true);
      for (const at of [0, 65535, 65536, 2 * 65536 + 7, 3 * 65536 - 1, 3 * 65536, size - 1]) {
        for (const bad of [0x1b, 0x0d, 0x7f, 0x80, 0xff, 0x00]) {
          const copy = Buffer.from(bytes);
          copy[at] = bad;
          expect(isPlainBytesWasm(copy), `0x${bad.toString(16)} at ${at}`).toBe(false);
        }
      }
      // A bad byte scanned in an earlier call (the area still holds it) is not seen again.
      expect(isPlainBytesWasm(bytes.subarray(0, 100))).toBe(true);
    }
  });
});

describe("PtyBatch", () => {
  const sample = Buffer.concat([
    Buffer.from("plain line\n".repeat(50)),
    Buffer.from("h\u00e9llo \u2713 \u65e5\u672c \u{1F600}\n"),
    Buffer.from([0xff, 0x41, 0xe2, 0x9c, 0x0a]), // invalid bytes, then a character cut short
    Buffer.from("\x1b[31mred\x1b[0m\r\n"),
    Buffer.from("more plain text\n".repeat(40)),
  ]);

  it("decodes chunks split anywhere, in batches of any size, as one streaming decoder does", () => {
    const expected = new StringDecoder("utf8").write(sample);
    for (let seed = 1; seed <= 40; seed++) {
      const next = random(seed);
      const capacity = 8 + Math.floor(next() * 200);
      const batch = new PtyBatch(capacity);
      let text = "";
      for (const chunk of chunked(sample, next, 64)) {
        if (!batch.fits(chunk)) {
          text += batch.take().text;
          if (!batch.fits(chunk)) {
            text += batch.decodeAlone(chunk).text;
            continue;
          }
        }
        batch.add(chunk);
        if (next() < 0.3) text += batch.take().text;
      }
      text += batch.take().text;
      expect(text, `seed ${seed}`).toBe(expected);
    }
  });

  it("calls a batch plain only when its text needs no sanitizing and no decoder state is pending", () => {
    const batch = new PtyBatch(64);
    batch.add(Buffer.from("abc\n"));
    expect(batch.take()).toEqual({ text: "abc\n", plain: true });
    batch.add(Buffer.from("tab\there\r\n"));
    expect(batch.take().plain).toBe(false);
    batch.add(Buffer.from([0x68, 0xc3]));
    expect(batch.take()).toEqual({ text: "h", plain: false });
    // The rest of the character: ASCII-looking bytes follow, but the decoder holds the start.
    batch.add(Buffer.from([0xa9, 0x21]));
    expect(batch.take()).toEqual({ text: "\u00e9!", plain: false });
    batch.add(Buffer.from("plain again"));
    expect(batch.take()).toEqual({ text: "plain again", plain: true });
    // A character cut short, then plain ASCII: the decoder's replacement character comes first.
    batch.add(Buffer.from([0x61, 0xe2, 0x9c]));
    expect(batch.take()).toEqual({ text: "a", plain: false });
    batch.add(Buffer.from("bcd"));
    expect(batch.take()).toEqual({ text: "\ufffdbcd", plain: false });
    for (const { text, plain } of [batch.decodeAlone(Buffer.from("xyz")), batch.decodeAlone(Buffer.from("abcdefg\n").subarray(1))]) {
      expect(sanitizeTerminalText(text)).toBe(text);
      expect(typeof plain).toBe("boolean");
    }
    expect(batch.decodeAlone(Buffer.from("abcdefg\n").subarray(1)).text).toBe("bcdefg\n");
  });
});

describe("OutputCollector over bytes", () => {
  let cleanup: (() => void) | undefined;
  afterEach(() => cleanup?.());

  const collect = async (chunks: Buffer[]) => {
    const t = tempDir();
    cleanup = t.cleanup;
    const file = path.join(t.dir, "out.log");
    const collector = new OutputCollector(() => file, { maxLines: 40, maxBytes: 4096 });
    for (const chunk of chunks) collector.push(chunk);
    const output = await collector.finish();
    return { output, saved: output.outputFile ? readFileSync(output.outputFile, "utf8") : undefined };
  };

  it("gives the same text, counts and saved file however the bytes are chunked", async () => {
    const lines: string[] = [];
    for (let i = 0; i < 5000; i++) {
      lines.push(i % 97 === 0 ? `caf\u00e9 \u2713 line ${i}` : i % 101 === 0 ? `\x1b[32mgreen ${i}\x1b[0m` : `plain ascii line number ${i}`);
    }
    const bytes = Buffer.from(lines.join("\n") + "\n");
    expect(bytes.length).toBeGreaterThan(2 * BATCH_BYTES);
    const expectedText = lines.map((line) => line.replaceAll("\x1b[32m", "").replaceAll("\x1b[0m", "")).join("\n") + "\n";
    const whole = await collect([bytes]);
    expect(whole.saved).toBe(expectedText);
    expect(whole.output.totalLines).toBe(5000);
    expect(whole.output.totalBytes).toBe(Buffer.byteLength(expectedText));
    for (const [seed, maxChunk] of [
      [1, 7],
      [2, 4096],
      [3, 70_000],
    ] as const) {
      const run = await collect(chunked(bytes, random(seed), maxChunk));
      expect(run.saved, `seed ${seed}`).toBe(expectedText);
      expect(run.output.text.replace(/Full output: \S+/, "")).toBe(whole.output.text.replace(/Full output: \S+/, ""));
      expect(run.output.totalLines).toBe(5000);
      expect(run.output.totalBytes).toBe(whole.output.totalBytes);
    }
  });

  it("queues small chunks until something reads them, then hands them over in order", () => {
    const collector = new OutputCollector(() => "/nonexistent/never-written.log");
    collector.push(Buffer.from("one "));
    collector.push(Buffer.from([0xe2, 0x9c]));
    expect(collector.hasPendingRaw).toBe(true);
    collector.push(Buffer.from([0x93, 0x0a]));
    expect(collector.takeRaw()).toEqual({ chunk: "one \u2713\n", skippedBytes: 0 });
    expect(collector.hasPendingRaw).toBe(false);
  });

  it("drops an incomplete character at the very end, as node-pty's decoding did", async () => {
    const { output } = await collect([Buffer.from("abc"), Buffer.from([0xe2, 0x9c])]);
    expect(output.text).toBe("abc");
    expect(output.totalBytes).toBe(3);
  });
});
