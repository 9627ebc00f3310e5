// The file a command's full output is saved to once it outgrows the model's bounds. Text is
// appended through buffers of SPILL_BYTES (ASCII copied byte for byte, not encoded), each written
// off the main thread (fs.write at its own position, so writes may finish in any order) while the
// next one fills. At most MAX_BUFFERS are in flight; when the disk falls that far behind, a full
// buffer is written synchronously instead, so memory stays bounded. `close()` waits for every
// write, then closes the file. Never throws or rejects: the first failure is kept in `error` (the
// caller names it instead of the file) and later text is dropped.
import { close, closeSync, mkdirSync, openSync, write, writeSync } from "node:fs";
import path from "node:path";

/** Text is written in pieces of at least this many bytes (and at a pause, and at the end). */
// Each write handed to the thread pool wakes a thread, which on 2 cores can take the CPU from the
// main thread just when it should read the pty again: 512 KB pieces (200 per 100 MB) against
// 64 KB ones, 6 alternated runs of the 100 MB command: the tool 1,345 against 1,498 ms (median),
// its main thread 569 against 645 ms of CPU.
export const SPILL_BYTES = 512 * 1024;
/** Buffers filled or being written at once at most (the memory bound: 4 x 1 MB). */
const MAX_BUFFERS = 4;
const BUFFER_BYTES = 2 * SPILL_BYTES;

export class SpillFile {
  readonly path: string | undefined;
  #error: Error | undefined;
  #fd: number | undefined;
  /** The next byte's offset in the file. */
  #position = 0;
  #buffer: Buffer | undefined;
  #used = 0;
  /** Buffers written and free again. */
  readonly #free: Buffer[] = [];
  #buffers = 0;
  #inFlight = 0;
  #drained: (() => void) | undefined;

  /** Creates the file (private to the user: saved output may hold private data). */
  constructor(filePath: () => string) {
    try {
      this.path = filePath();
      mkdirSync(path.dirname(this.path), { recursive: true, mode: 0o700 });
      this.#fd = openSync(this.path, "w", 0o600);
    } catch (err) {
      this.#error = err as Error;
    }
  }

  get error(): Error | undefined {
    return this.#error;
  }

  /** Appends `text`; `ascii` when every character is below 0x80 (then it is copied, not encoded). */
  append(text: string, ascii: boolean): void {
    if (this.#fd === undefined || this.#error || text === "") return;
    // At most 3 bytes per UTF-16 unit: what cannot fit a buffer is written straight through.
    const most = ascii ? text.length : text.length * 3;
    if (this.#buffer && most > BUFFER_BYTES - this.#used) this.#flush();
    if (most > BUFFER_BYTES) return this.#writeNow(Buffer.from(text, ascii ? "latin1" : "utf8"));
    this.#buffer ??= this.#takeBuffer();
    this.#used += this.#buffer.write(text, this.#used, ascii ? "latin1" : "utf8");
    if (this.#used >= SPILL_BYTES) this.#flush();
  }

  /** Writes what is buffered (the output paused: the file is then up to date). */
  flush(): void {
    if (this.#buffer) this.#flush();
  }

  /** Writes what is buffered, waits for every write, closes the file. */
  async close(): Promise<void> {
    if (this.#buffer) this.#flush();
    if (this.#inFlight > 0) await new Promise<void>((resolve) => (this.#drained = resolve));
    const fd = this.#fd;
    this.#fd = undefined;
    this.#free.length = 0;
    if (fd !== undefined) await new Promise<void>((resolve) => close(fd, () => resolve()));
  }

  #takeBuffer(): Buffer {
    const free = this.#free.pop();
    if (free) return free;
    this.#buffers++;
    return Buffer.allocUnsafe(BUFFER_BYTES);
  }

  #flush(): void {
    const buffer = this.#buffer;
    const used = this.#used;
    this.#buffer = undefined;
    this.#used = 0;
    if (!buffer || used === 0) {
      if (buffer) this.#free.push(buffer);
      return;
    }
    // Every buffer is in flight: the disk is behind; this one waits here rather than add memory.
    if (this.#free.length === 0 && this.#buffers >= MAX_BUFFERS) {
      this.#writeNow(buffer.subarray(0, used));
      this.#free.push(buffer);
      return;
    }
    const position = this.#position;
    this.#position += used;
    this.#inFlight++;
    this.#writeAt(buffer, 0, used, position);
  }

  /** Writes buffer[from, to) at `position` off the main thread, the rest again after a short write. */
  #writeAt(buffer: Buffer, from: number, to: number, position: number): void {
    const fd = this.#fd;
    if (fd === undefined || this.#error) return this.#settled(buffer);
    write(fd, buffer, from, to - from, position, (err, written) => {
      if (err) this.#fail(err);
      else if (from + written < to) return this.#writeAt(buffer, from + written, to, position + written);
      this.#settled(buffer);
    });
  }

  #settled(buffer: Buffer): void {
    this.#free.push(buffer);
    if (--this.#inFlight === 0) this.#drained?.();
  }

  #writeNow(data: Buffer): void {
    if (this.#fd === undefined || this.#error) return;
    try {
      for (let at = 0; at < data.length;) at += writeSync(this.#fd, data, at, data.length - at, this.#position + at);
      this.#position += data.length;
    } catch (err) {
      this.#fail(err as Error);
    }
  }

  #fail(err: Error): void {
    this.#error ??= err;
    // Later text is dropped; the file is closed once the writes in flight are done (close()).
    if (this.#inFlight === 0 && this.#fd !== undefined) {
      closeSync(this.#fd);
      this.#fd = undefined;
    }
  }
}
