// Turns a terminal byte stream (already decoded to UTF-8 text) into plain text for the model:
// ANSI sequences removed, CRLF made LF, carriage-return progress bars collapsed to their last
// state, other control characters dropped. Streaming: text arrives in arbitrary chunks and comes
// out line-aligned, with state bounded whatever the input (a huge line without a newline is
// released in pieces; a progress bar keeps only its last state). Text without any control
// character is plain and passes unchanged, unscanned when the caller already knows (the redaction
// scan notes control characters in the same pass); `verified` says whether the last `push`
// returned such text unchanged. Never throws.
import stripAnsi from "strip-ansi";

/** A line without a newline is released (or collapsed) once its pending part exceeds this. */
const MAX_PENDING_CHARS = 64 * 1024;
// eslint-disable-next-line no-control-regex -- control characters are exactly what is matched
const CONTROL_CHARS = /[\x00-\x08\x0b\x0c\x0e-\x1a\x1c-\x1f\x7f]/g;

/** Every character sanitizing changes or drops: the control characters, CR and ESC, and 8-bit CSI. */
// eslint-disable-next-line no-control-regex -- control characters are exactly what is matched
const ANY_CONTROL = /[\x00-\x08\x0b-\x1f\x7f\x9b]/;

/** Whether `text` holds a character that sanitizing would change (else it passes unchanged). */
export function hasControlChars(text: string): boolean {
  return ANY_CONTROL.test(text);
}

function hasEscape(text: string): boolean {
  return text.includes("\x1b") || text.includes("\x9b");
}

/**
 * Sanitizes complete text (no streaming state). Lines end in "\n" (the pty does no output
 * processing, see pty-command.ts); a line's last carriage-return segment is kept, after one final
 * "\r" is dropped. That gives exactly what the same program's output gave when the pty turned
 * each "\n" into "\r\n" and CRLF was collapsed first (a program's own "\r\n" ends its line
 * either way), so the model's text did not change with the terminal mode.
 */
export function sanitizeTerminalText(text: string): string {
  let out = hasEscape(text) ? stripAnsi(text) : text;
  if (out.includes("\r")) out = out.split("\n").map(lastCarriageSegment).join("\n");
  CONTROL_CHARS.lastIndex = 0;
  return CONTROL_CHARS.test(out) ? out.replace(CONTROL_CHARS, "") : out;
}

function lastCarriageSegment(line: string): string {
  const trimmed = line.endsWith("\r") ? line.slice(0, -1) : line;
  const i = trimmed.lastIndexOf("\r");
  return i === -1 ? trimmed : trimmed.slice(i + 1);
}

export class TerminalTextStream {
  private pending = "";
  /** Whether `pending` may hold control characters. */
  private pendingControls = false;
  /** Whether the last `push` returned its input's lines unchanged (they held no control character). */
  verified = true;

  /**
   * Feeds a chunk; returns the sanitized text of the lines it completed (maybe ""). `controls`:
   * whether the chunk may hold control characters, when the caller knows (else it is scanned).
   */
  push(chunk: string, controls: boolean = hasControlChars(chunk)): string {
    const text = this.pending === "" ? chunk : this.pending + chunk;
    const plain = !this.pendingControls && !controls;
    const lastNewline = text.lastIndexOf("\n");
    if (lastNewline === -1) {
      this.pending = text;
      this.pendingControls = !plain;
      this.verified = plain;
      return this.pending.length > MAX_PENDING_CHARS ? this.releaseLongPending() : "";
    }
    this.pending = text.slice(lastNewline + 1);
    this.pendingControls = controls;
    this.verified = plain;
    const lines = text.slice(0, lastNewline + 1);
    const complete = plain ? lines : sanitizeTerminalText(lines);
    return this.pending.length > MAX_PENDING_CHARS ? complete + this.releaseLongPending() : complete;
  }

  /** The sanitized current incomplete line (a progress bar's latest state), without consuming it. */
  peekPending(): string {
    return sanitizeTerminalText(lastCarriageSegment(this.pending));
  }

  /** Ends the stream: returns the sanitized remainder. */
  flush(): string {
    const rest = this.pending;
    this.pending = "";
    this.pendingControls = false;
    return rest === "" ? "" : sanitizeTerminalText(lastCarriageSegment(rest));
  }

  private releaseLongPending(): string {
    const cr = this.pending.lastIndexOf("\r");
    if (cr > 0) {
      // Everything before the last carriage return is overwritten on screen: keep only the rest.
      this.pending = this.pending.slice(cr);
      if (this.pending.length <= MAX_PENDING_CHARS) return "";
    }
    // Keep a short tail pending in case an escape sequence was cut at the chunk's end.
    const keep = 64;
    const out = this.pending.slice(0, -keep);
    this.pending = this.pending.slice(-keep);
    if (!this.pendingControls) return out;
    this.verified = false;
    return sanitizeTerminalText(out.startsWith("\r") ? out.slice(1) : out);
  }
}
