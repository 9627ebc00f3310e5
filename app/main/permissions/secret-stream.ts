// Redaction of text that arrives in chunks (a command's output as it streams), so that nothing
// unredacted is ever handed on, even when a secret is split across chunks. Each `push` emits the
// text that is settled: everything but the last `hold` characters (every rule's match is bounded,
// so a match starting before that point is complete), extended over a secret that straddles it.
// A private key block is held from its header until its end line arrives; one longer than
// MAX_KEY_BLOCK is redacted and the rest of its body swallowed. The already emitted tail is kept
// as context, so a secret whose keyword was emitted earlier (`token=` then the value) is still
// found. `flushIdle` (when the output pauses, e.g. at a prompt) emits up to the last blank, since
// no secret value contains one; `end` emits the rest. With `ansi`, matching looks through
// terminal escape sequences (colours inside a secret). Work per call is bounded by the chunk
// plus `hold`.
// Text pushed as `verified` is already redacted by an equivalent scan (the bash tool's plain lines,
// which its raw-output stream scanned as they are): it is not scanned again, except within `hold`
// of text that was not, so a secret straddling the two is still found. `outputHasControls` says
// whether the text a call returned may hold control characters (found in the same scan). Never throws.
import { applySpans, type ControlPositions, KEY_BODY_LINE, type SecretSpan } from "./secret-spans.ts";

/** What a stream needs of the scanner (redaction.ts's SecretScanner). */
interface SpanFinder {
  /** How much trailing text to hold back so that every match there is complete. */
  readonly hold: number;
  find(text: string, from?: number, controls?: ControlPositions): SecretSpan[];
}

export interface SecretStreamOptions {
  /** The text is raw terminal output: match secrets through escape sequences. */
  ansi?: boolean;
}

/** Emitted text kept (raw) so matches can begin before what is not yet emitted. */
const CONTEXT = 512;
const MAX_SWALLOWED_LINE = 64 * 1024;
/**
 * A longer push is taken in pieces, each so long that what a step scans (the context, the held
 * text and the piece) stays below this many characters: as two-byte characters, below V8's
 * large-object size (128 KB), so building and collecting it costs less. Measured on 64 KB pushes
 * (bench/permissions.bench.ts, alternated in one process): pieces of 30,000 characters were about
 * a sixth faster than whole pushes; pieces to this bound (about 59,000) another tenth.
 */
const MAX_SCANNED = 62_000;
/** The shortest piece, whatever the scanner holds back (a configured key of thousands of characters). */
const MIN_PIECE = 8_192;
// eslint-disable-next-line no-control-regex -- escape sequences are what is matched
const ESCAPES = /\x1b(?:\[[0-?]*[ -/]*[@-~]|\][^\x07\x1b]*(?:\x07|\x1b\\)|[P^_][^\x1b]*\x1b\\|[@-Z\\-_])/g;

export class SecretStream {
  private readonly scanner: SpanFinder;
  private readonly ansi: boolean;
  private pending = "";
  private context = "";
  private swallowing = false;
  /** pending[0, unverified) was not pushed as verified: it (and `hold` after it) must be scanned. */
  private unverified = 0;
  private readonly controls: ControlPositions = { first: -1, last: -1 };
  /** With `ansi`: the last text scanned had escape sequences. */
  private escapes = false;
  /** Whether the text returned by the last call may hold control characters (never a false "no"). */
  outputHasControls = false;
  /** Kinds of secrets removed so far, with counts. */
  readonly found: Record<string, number> = {};

  constructor(scanner: SpanFinder, options: SecretStreamOptions = {}) {
    this.scanner = scanner;
    this.ansi = options.ansi === true;
  }

  /** How long the pieces of a longer push are (see MAX_SCANNED). */
  get pieceLength(): number {
    return Math.max(MIN_PIECE, MAX_SCANNED - CONTEXT - this.scanner.hold);
  }

  /** Characters received but not yet emitted. */
  get held(): number {
    return this.pending.length;
  }

  /** Adds text; `verified`: it is already redacted (see the header). Returns the settled text. */
  push(chunk: string, verified = false): string {
    this.outputHasControls = false;
    const piece = this.pieceLength;
    if (chunk.length <= piece) return this.add(chunk, verified);
    let out = "";
    for (let at = 0; at < chunk.length; at += piece) out += this.add(chunk.slice(at, at + piece), verified);
    return out;
  }

  private add(chunk: string, verified: boolean): string {
    this.pending += chunk;
    if (!verified) this.unverified = this.pending.length;
    return this.emit("push");
  }

  /** The output paused: emits up to the last blank (a prompt shows; a half-written token waits). */
  flushIdle(): string {
    this.outputHasControls = false;
    return this.pending === "" ? "" : this.emit("idle");
  }

  /** The output ended: emits the rest, and stops swallowing a key's body even with nothing pending. */
  end(): string {
    this.outputHasControls = false;
    return this.emit("end");
  }

  private emit(mode: "push" | "idle" | "end"): string {
    let out = "";
    if (this.swallowing) {
      out += this.swallow(mode === "end");
      if (this.swallowing) return out;
    }
    const buf = this.context + this.pending;
    const base = this.context.length;
    const scan = this.unverified > 0;
    const spans = scan ? this.find(buf, base) : [];
    let cut = buf.length;
    if (mode === "push") cut = buf.length - this.scanner.hold;
    else if (mode === "idle") {
      let i = buf.length;
      while (i > base && !/\s/.test(buf[i - 1]!)) i--;
      cut = Math.max(i, buf.length - this.scanner.hold);
    }
    cut = Math.max(cut, base);
    let truncatedKey = false;
    for (const span of spans) {
      if (span.open && mode !== "end") {
        if (span.start < cut) cut = Math.max(base, span.start);
        break;
      }
      if (span.truncated && span.start < cut) {
        // The rest of this block follows: stop right after it and swallow what comes.
        cut = span.end;
        truncatedKey = true;
        break;
      }
      if (span.start < cut && span.end > cut) cut = span.end;
    }
    if (scan && cut > base && this.controls.first !== -1 && this.controls.last >= base && this.controls.first < cut) this.outputHasControls = true;
    out += applySpans(buf, spans, base, cut, this.found).text;
    this.context = cut - base >= CONTEXT ? buf.slice(cut - CONTEXT, cut) : (this.context + buf.slice(base, cut)).slice(-CONTEXT);
    this.pending = buf.slice(cut);
    this.unverified = Math.max(0, this.unverified - (cut - base));
    if (truncatedKey) {
      this.swallowing = true;
      out += this.swallow(mode === "end");
      if (!this.swallowing) out += this.emit(mode);
    }
    return out;
  }

  /** Drops the rest of an overlong key block: its base64 lines, through its end line. */
  private swallow(atEnd: boolean): string {
    this.swallowLines(atEnd);
    // What is left is scanned again, whatever it was pushed as.
    this.unverified = this.pending.length;
    return "";
  }

  private swallowLines(atEnd: boolean): void {
    for (;;) {
      const newline = this.pending.indexOf("\n");
      if (newline === -1) {
        if (atEnd || this.pending.length > MAX_SWALLOWED_LINE) this.pending = "";
        if (atEnd) this.swallowing = false;
        return;
      }
      const line = this.pending.slice(0, newline);
      if (/-----END[ A-Z0-9_-]{0,100}PRIVATE KEY/i.test(line)) {
        this.pending = this.pending.slice(newline); // the line break after the block stays
        this.swallowing = false;
        return;
      }
      if (!KEY_BODY_LINE.test(line)) {
        this.swallowing = false;
        return;
      }
      this.pending = this.pending.slice(newline + 1);
    }
  }

  /**
   * Secrets in `buf` ending after `base`; with `ansi`, found in the text without escape sequences.
   * Notes where control characters are in `buf` (escapes included) in `controls`.
   */
  private find(buf: string, base: number): SecretSpan[] {
    if (!this.ansi) return this.scanner.find(buf, base, this.controls);
    // An escape is a control character: text with none is scanned once, as it is. Output that
    // had escapes lately is searched for one first, to skip that scan.
    let firstEscape: number;
    if (!this.escapes) {
      const spans = this.scanner.find(buf, base, this.controls);
      if (this.controls.first === -1) return spans;
      firstEscape = buf.indexOf("\x1b", this.controls.first);
      if (firstEscape === -1) return spans;
    } else {
      firstEscape = buf.indexOf("\x1b");
      this.escapes = firstEscape !== -1;
      if (firstEscape === -1) return this.scanner.find(buf, base, this.controls);
    }
    this.escapes = true;
    const map: number[] = [];
    let visible = "";
    let pos = 0;
    ESCAPES.lastIndex = 0;
    for (let m = ESCAPES.exec(buf); ; m = ESCAPES.exec(buf)) {
      const stop = m ? m.index : buf.length;
      for (let i = pos; i < stop; i++) map.push(i);
      visible += buf.slice(pos, stop);
      if (!m) break;
      pos = m.index + m[0].length;
    }
    map.push(buf.length);
    let visibleBase = 0;
    while (visibleBase < map.length - 1 && map[visibleBase]! < base) visibleBase++;
    const spans = this.scanner.find(visible, visibleBase, this.controls).map((s) => ({ ...s, start: map[s.start]!, end: s.end > 0 ? map[s.end - 1]! + 1 : 0 }));
    const c = this.controls;
    c.first = c.first === -1 ? firstEscape : Math.min(map[c.first]!, firstEscape);
    c.last = Math.max(c.last === -1 ? -1 : map[c.last]!, buf.lastIndexOf("\x1b"));
    return spans;
  }
}
