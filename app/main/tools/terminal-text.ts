// Turns a terminal byte stream (already decoded to UTF-8 text) into plain text for the model:
// ANSI sequences removed, CRLF made LF, carriage-return progress bars collapsed to their last
// state, other control characters dropped. Streaming: text arrives in arbitrary chunks and comes
// out line-aligned, with state bounded whatever the input (a huge line without a newline is
// released in pieces; a progress bar keeps only its last state). Never throws.
import stripAnsi from "strip-ansi";

/** A line without a newline is released (or collapsed) once its pending part exceeds this. */
const MAX_PENDING_CHARS = 64 * 1024;
// eslint-disable-next-line no-control-regex -- control characters are exactly what is matched
const CONTROL_CHARS = /[\x00-\x08\x0b\x0c\x0e-\x1a\x1c-\x1f\x7f]/g;

function hasEscape(text: string): boolean {
  return text.includes("\x1b") || text.includes("\x9b");
}

/** Sanitizes complete text (no streaming state). */
export function sanitizeTerminalText(text: string): string {
  let out = hasEscape(text) ? stripAnsi(text) : text;
  if (out.includes("\r")) {
    out = out.replaceAll("\r\n", "\n");
    if (out.includes("\r")) out = out.split("\n").map(lastCarriageSegment).join("\n");
  }
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

  /** Feeds a chunk; returns the sanitized text of the lines it completed (maybe ""). */
  push(chunk: string): string {
    const text = this.pending === "" ? chunk : this.pending + chunk;
    const lastNewline = text.lastIndexOf("\n");
    if (lastNewline === -1) {
      this.pending = text;
      return this.pending.length > MAX_PENDING_CHARS ? this.releaseLongPending() : "";
    }
    this.pending = text.slice(lastNewline + 1);
    const complete = sanitizeTerminalText(text.slice(0, lastNewline + 1));
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
    return sanitizeTerminalText(out.startsWith("\r") ? out.slice(1) : out);
  }
}
