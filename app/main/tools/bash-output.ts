// Collects one command's output with memory bounded whatever its size. Owns: the model's view (the
// whole sanitized text while it fits the bounds, then its head plus a rolling tail), the raw text
// not yet handed to the UI (capped: the oldest is counted as skipped), and the full sanitized
// output, spilled to a file once it outgrows the bounds. With a redactor, secrets are removed as
// the output streams, before anything is kept, shown or written: the raw terminal bytes are
// redacted first (matching through escape sequences), the text made from them again; each holds
// back the few KB that could still be the start of a secret until more arrives, the output pauses
// (`flushIdle`) or it ends. Never throws: a spill file that cannot be written is named in the
// notice instead.
// Speed: chunks arrive as bytes and are coalesced (`push` only copies them into a batch, which is
// processed once it holds BATCH_BYTES, or before anything is read: pty-batch.ts) and decoded once
// per batch; a plain ASCII batch (found by a word-at-a-time scan) is neither scanned again nor
// sanitized. With a redactor each batch is scanned once for keywords and control characters
// together; plain lines (no control character) are the raw stream's redacted output unchanged, so
// the text stream takes them as verified without scanning them again. The spill file is written
// in large buffers off the main thread (spill-file.ts).
import { type DecodedBatch, PtyBatch } from "./pty-batch.ts";
import { SpillFile } from "./spill-file.ts";
import { TerminalTextStream } from "./terminal-text.ts";
import { type Bounds, byteLength, DEFAULT_BOUNDS, formatBytes, truncateHead, truncateTail } from "./truncate.ts";

/** Raw output kept for the next UI update at most; older bytes are counted in `skippedBytes`. */
// Kept under V8's large-object size: bigger strings go straight to the old generation and stay
// until a full collection, which is what made memory grow with output size.
export const RAW_UPDATE_CAP = 64 * 1024;
/** Queued raw bytes that make `push` process the batch at once. */
export const BATCH_BYTES = 48 * 1024;
/** The batch buffer's size: room for a few more chunks past BATCH_BYTES. */
const BATCH_CAPACITY = 64 * 1024;

export interface RawSlice {
  chunk: string;
  /** Raw characters dropped before `chunk` because the UI fell behind the cap. */
  skippedBytes: number;
}

/** A source of secret redactors (the permission layer's scanner); see permissions/secret-stream.ts. */
export interface OutputRedactor {
  stream(options?: { ansi?: boolean }): RedactingStream;
}

export interface RedactingStream {
  /** `verified`: the text is already redacted by an equivalent scan (see secret-stream.ts). */
  push(chunk: string, verified?: boolean): string;
  flushIdle(): string;
  end(): string;
  readonly found: Record<string, number>;
  readonly held: number;
  /** Whether the text the last call returned may hold control characters (never a false "no"). */
  readonly outputHasControls?: boolean;
}

export interface CollectedOutput {
  /** What the model is shown: the whole output, or head + notice + tail. */
  text: string;
  truncated: boolean;
  totalLines: number;
  totalBytes: number;
  /** The full sanitized output, when it did not fit the bounds. */
  outputFile?: string;
  /** Secrets removed as the output streamed, by kind. */
  redactions: Record<string, number>;
}

export class OutputCollector {
  private readonly bounds: Bounds;
  private readonly spillPath: () => string;
  private readonly text = new TerminalTextStream();
  /** The whole sanitized output while it fits; then the head part only. */
  private all = "";
  private head: string | undefined;
  /** The latest sanitized text, in pieces (never joined while streaming: see RAW_UPDATE_CAP). */
  private tail: string[] = [];
  private tailChars = 0;
  private lines = 0;
  private bytes = 0;
  /** Whether the text so far ends inside a line (the next text continues it). */
  private endsOpen = false;
  /** Raw bytes not processed yet (see `drain`). */
  private readonly batch = new PtyBatch(BATCH_CAPACITY);
  private raw: string[] = [];
  private rawPending = 0;
  private rawSkipped = 0;
  /** The full output's file, once the output outgrew the bounds. */
  private spill: SpillFile | undefined;
  private readonly rawSecrets: RedactingStream | undefined;
  private readonly textSecrets: RedactingStream | undefined;

  constructor(spillPath: () => string, bounds: Bounds = DEFAULT_BOUNDS, redactor?: OutputRedactor) {
    this.spillPath = spillPath;
    this.bounds = bounds;
    this.rawSecrets = redactor?.stream({ ansi: true });
    this.textSecrets = redactor?.stream();
  }

  /** Whether raw output is waiting for the next `takeRaw` (queued chunks included). */
  get hasPendingRaw(): boolean {
    return this.batch.size > 0 || this.rawPending > 0 || this.rawSkipped > 0;
  }

  /**
   * Queues a raw chunk (the terminal's bytes); processes the batch once it is large. Whatever reads
   * (takeRaw, textTail, flushIdle, endRedaction, finish) processes what is queued first.
   */
  push(chunk: Uint8Array): void {
    if (chunk.length === 0) return;
    // A large chunk (the native reader's batches) is processed in pieces of a batch's size, each
    // decoded where it lies, without copying: strings stay under V8's large-object size.
    if (chunk.length >= BATCH_BYTES) {
      this.drain();
      for (let at = 0; at < chunk.length; at += BATCH_BYTES) {
        const piece = chunk.subarray(at, Math.min(chunk.length, at + BATCH_BYTES));
        if (piece.length < BATCH_BYTES) this.batch.add(piece);
        else this.process(this.batch.decodeAlone(piece));
      }
      return;
    }
    if (!this.batch.fits(chunk)) {
      this.drain();
      if (!this.batch.fits(chunk)) return this.process(this.batch.decodeAlone(chunk));
    }
    this.batch.add(chunk);
    if (this.batch.size >= BATCH_BYTES) this.drain();
  }

  /** Processes the queued bytes as one batch. */
  drain(): void {
    if (this.batch.size > 0) this.process(this.batch.take());
  }

  private process({ text, plain }: DecodedBatch): void {
    if (text === "") return;
    if (!this.rawSecrets) return this.pushRedacted(text, plain ? false : undefined);
    const redacted = this.rawSecrets.push(text);
    this.pushRedacted(redacted, this.rawSecrets.outputHasControls ?? true);
  }

  /**
   * The output paused: releases what redaction held back up to the last blank (a prompt waiting
   * for input shows) and writes what the spill file buffers. Returns whether anything new is
   * waiting for `takeRaw`.
   */
  flushIdle(): boolean {
    this.drain();
    let released = false;
    if (this.rawSecrets && this.rawSecrets.held + (this.textSecrets?.held ?? 0) > 0) {
      const raw = this.rawSecrets.flushIdle();
      this.pushRedacted(raw, this.rawSecrets.outputHasControls ?? true);
      const text = this.textSecrets!.flushIdle();
      this.addText(text);
      released = raw !== "" || text !== "";
    }
    this.spill?.flush();
    return released;
  }

  /** Secrets removed so far, by kind. */
  get redactions(): Record<string, number> {
    const found: Record<string, number> = {};
    for (const stream of [this.rawSecrets, this.textSecrets]) {
      for (const [kind, n] of Object.entries(stream?.found ?? {})) found[kind] = (found[kind] ?? 0) + n;
    }
    return found;
  }

  /** Raw output (redacted) for the UI and the text; `controls`: whether it may hold control characters, if known. */
  private pushRedacted(chunk: string, controls: boolean | undefined): void {
    if (chunk === "") return;
    this.raw.push(chunk);
    this.rawPending += chunk.length;
    while (this.rawPending > RAW_UPDATE_CAP && this.raw.length > 1) {
      const dropped = this.raw.shift()!;
      this.rawPending -= dropped.length;
      this.rawSkipped += dropped.length;
    }
    const text = this.text.push(chunk, controls);
    // Plain lines are the raw stream's redacted output unchanged: the text stream need not scan them.
    this.addText(this.redactText(text, this.rawSecrets !== undefined && this.text.verified));
  }

  private redactText(text: string, verified = false): string {
    return this.textSecrets && text !== "" ? this.textSecrets.push(text, verified) : text;
  }

  /** Raw output since the last call, for a terminal view. */
  takeRaw(): RawSlice {
    this.drain();
    const slice = { chunk: this.raw.join(""), skippedBytes: this.rawSkipped };
    this.raw = [];
    this.rawPending = 0;
    this.rawSkipped = 0;
    return slice;
  }

  /** The last lines of sanitized output so far, including a progress bar's current state. */
  textTail(maxLines = 20): string {
    this.drain();
    const current = this.head === undefined ? this.all : this.latestText(8 * 1024);
    return truncateTail(current + this.text.peekPending(), { maxLines, maxBytes: 8 * 1024 }).text;
  }

  /** The output ended: releases everything redaction held back (call before the last `takeRaw`). */
  endRedaction(): void {
    this.drain();
    if (this.rawSecrets && this.rawSecrets.held > 0) {
      const rest = this.rawSecrets.end();
      this.pushRedacted(rest, this.rawSecrets.outputHasControls ?? true);
    }
  }

  async finish(): Promise<CollectedOutput> {
    this.endRedaction();
    this.addText(this.redactText(this.text.flush()));
    if (this.textSecrets) this.addText(this.textSecrets.end());
    await this.spill?.close();
    if (this.head === undefined) {
      return { text: this.all, truncated: false, totalLines: this.lines, totalBytes: this.bytes, redactions: this.redactions };
    }
    const half = { maxLines: Math.floor(this.bounds.maxLines / 2), maxBytes: Math.floor(this.bounds.maxBytes / 2) };
    const head = truncateHead(this.head, half);
    const tail = truncateTail(this.latestText(this.bounds.maxBytes), half);
    const omitted = Math.max(0, this.lines - head.keptLines - tail.keptLines);
    const fileError = this.spill?.error;
    const where = fileError
      ? `The full output could not be saved (${fileError.message}).`
      : `Full output: ${this.spill?.path} (read it with the read tool and offset/limit, or grep it).`;
    const notice =
      `[Output truncated: ${this.lines} lines (${formatBytes(this.bytes)}); showing the first ${head.keptLines} ` +
      `and the last ${tail.keptLines} lines, ${omitted} lines omitted. ${where}]`;
    return {
      text: `${head.text}\n\n${notice}\n\n${tail.text}`,
      truncated: true,
      totalLines: this.lines,
      totalBytes: this.bytes,
      outputFile: fileError ? undefined : this.spill?.path,
      redactions: this.redactions,
    };
  }

  private addText(text: string): void {
    if (text === "") return;
    const bytes = byteLength(text);
    this.bytes += bytes;
    const ascii = bytes === text.length;
    let newlines = 0;
    for (let i = text.indexOf("\n"); i !== -1; i = text.indexOf("\n", i + 1)) newlines++;
    this.lines += newlines + (text.endsWith("\n") ? 0 : 1) - (this.endsOpen ? 1 : 0);
    this.endsOpen = !text.endsWith("\n");
    if (this.head === undefined) {
      this.all += text;
      if (this.lines <= this.bounds.maxLines && this.bytes <= this.bounds.maxBytes) return;
      this.head = this.all;
      this.tail = [this.all];
      this.tailChars = this.all.length;
      this.all = "";
      this.spill = new SpillFile(this.spillPath);
      this.spill.append(this.head, this.bytes === this.head.length);
      return;
    }
    this.tail.push(text);
    this.tailChars += text.length;
    while (this.tail.length > 1 && this.tailChars - this.tail[0]!.length >= this.bounds.maxBytes) {
      this.tailChars -= this.tail.shift()!.length;
    }
    this.spill?.append(text, ascii);
  }

  /** At least the last `minChars` characters of text (whole pieces). */
  private latestText(minChars: number): string {
    let chars = 0;
    let i = this.tail.length;
    while (i > 0 && chars < minChars) chars += this.tail[--i]!.length;
    return this.tail.slice(i).join("");
  }
}
