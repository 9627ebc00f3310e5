// ripgrep's --json output read in bounded lines (grep-search.ts runs ripgrep). It has one line per
// matching line of a file, with the line's whole text and one `submatches` entry per match
// (ripgrep ignores --max-columns with --json), so a 1 MB line of a minified file can come out as
// 50 MB of JSON. RgJsonLines reads that output in time linear in it (each chunk scanned once) and
// keeps at most RG_JSON_LINE_MAX bytes of a line: a longer one is never JSON.parsed but read from
// its head (rgLongLine), its text cut to what the head holds, far more than grep shows (grep.ts
// cuts a line to 500 characters and says so). Never throws.
import type { GrepLine } from "./grep-match.ts";

export interface RgData {
  path: { text?: string; bytes?: string };
  lines: { text?: string; bytes?: string };
  line_number: number;
}

/** Bytes of one line of ripgrep's --json output read whole; a longer line is read from its head (rgLongLine). */
export const RG_JSON_LINE_MAX = 64 * 1024;
const LINE_NUMBER_KEY = Buffer.from(',"line_number":');
const NO_BYTES = Buffer.alloc(0);

/**
 * Splits ripgrep's --json output into lines as it streams, in time linear in the output: each
 * chunk is scanned once, and at most `maxLine` bytes of a line are kept. Each line ended by a
 * newline within `maxLine` goes to `onLine`; a longer one to `onLongLine`, as its first
 * `maxLine` bytes (decoded, maybe ending in a cut character) and the line number read from the
 * rest (after the first `,"line_number":`, which no JSON string holds: a `"` in one is always
 * escaped), or undefined if there is none.
 */
export class RgJsonLines {
  private parts: Buffer[] = [];
  private size = 0;
  /** The head of a line over maxLine, while it lasts; then the tail kept to find its line number in. */
  private head: Buffer | undefined;
  private lineNumber: number | undefined;
  private carry: Buffer = NO_BYTES;
  private readonly onLine: (json: string) => void;
  private readonly onLongLine: (head: string, lineNumber: number | undefined) => void;
  private readonly maxLine: number;

  constructor(onLine: (json: string) => void, onLongLine: (head: string, lineNumber: number | undefined) => void, maxLine = RG_JSON_LINE_MAX) {
    this.onLine = onLine;
    this.onLongLine = onLongLine;
    this.maxLine = maxLine;
  }

  /** Bytes of the current line held (at most maxLine and a few more). */
  get held(): number {
    return this.head ? this.head.length + this.carry.length : this.size;
  }

  push(chunk: Buffer): void {
    let start = 0;
    while (start < chunk.length) {
      const nl = chunk.indexOf(0x0a, start);
      this.take(chunk.subarray(start, nl === -1 ? chunk.length : nl));
      if (nl === -1) return;
      this.endLine();
      start = nl + 1;
    }
  }

  private take(piece: Buffer): void {
    if (piece.length === 0) return;
    if (this.head) {
      if (this.lineNumber === undefined) this.findLineNumber(this.carry.length > 0 ? Buffer.concat([this.carry, piece]) : piece);
      return;
    }
    if (this.size + piece.length <= this.maxLine) {
      this.parts.push(piece);
      this.size += piece.length;
      return;
    }
    // Over the limit: keep a copy of the head (not the chunks it came in), and look for the line number from the start.
    const start = Buffer.concat([...this.parts, piece]);
    this.parts = [];
    this.size = 0;
    this.head = Buffer.from(start.subarray(0, this.maxLine));
    this.findLineNumber(start);
  }

  private findLineNumber(bytes: Buffer): void {
    const at = bytes.indexOf(LINE_NUMBER_KEY);
    if (at === -1) {
      // The key may straddle this piece and the next.
      this.carry = Buffer.from(bytes.subarray(Math.max(0, bytes.length - LINE_NUMBER_KEY.length + 1)));
      return;
    }
    let i = at + LINE_NUMBER_KEY.length;
    let n = 0;
    for (; i < bytes.length && bytes[i]! >= 0x30 && bytes[i]! <= 0x39; i++) n = n * 10 + bytes[i]! - 0x30;
    if (i === bytes.length && i - at < 40) {
      // The digits may go on in the next piece.
      this.carry = Buffer.from(bytes.subarray(at));
      return;
    }
    this.lineNumber = i - at - LINE_NUMBER_KEY.length > 0 && i < bytes.length ? n : -1;
    this.carry = NO_BYTES;
  }

  private endLine(): void {
    const head = this.head;
    const lineNumber = this.lineNumber;
    const json = head ? "" : (this.parts.length === 1 ? this.parts[0]! : Buffer.concat(this.parts)).toString("utf8");
    this.parts = [];
    this.size = 0;
    this.head = undefined;
    this.lineNumber = undefined;
    this.carry = NO_BYTES;
    if (head) this.onLongLine(head.toString("utf8"), lineNumber === undefined || lineNumber < 0 ? undefined : lineNumber);
    else if (json) this.onLine(json);
  }
}

const LONG_EVENT = /^\{"type":"(match|context)","data":\{"path":/;
const LINES_KEY = ',"lines":{"';

/**
 * The match or context line of a --json line cut to its head (RgJsonLines), or undefined for
 * another event, a head of another shape or a missing line number. The text is the line's whole
 * text when the head holds it (only the submatches were cut), else the part of it the head holds
 * (tens of thousands of characters: grep shows it cut). ripgrep writes a match's keys in one
 * order: type, data (path, lines, line_number, …); `,"lines":{"` cannot occur inside the path (a
 * JSON string escapes its quotes).
 */
export function rgLongLine(head: string, lineNumber: number | undefined): GrepLine | undefined {
  const event = LONG_EVENT.exec(head);
  if (!event || lineNumber === undefined) return undefined;
  const linesAt = head.indexOf(LINES_KEY, event[0].length);
  if (linesAt === -1) return undefined;
  let pathData: RgData["path"];
  try {
    pathData = JSON.parse(head.slice(event[0].length, linesAt)) as RgData["path"];
  } catch {
    return undefined;
  }
  const rest = head.slice(linesAt + LINES_KEY.length);
  const kind = rest.startsWith('text":"') ? "text" : rest.startsWith('bytes":"') ? "bytes" : undefined;
  if (!kind) return undefined;
  const body = rest.slice(kind.length + 3);
  const close = closingQuote(body);
  if (close !== -1) {
    // The head holds the whole text: only its submatches were cut.
    const value = JSON.parse(`"${body.slice(0, close)}"`) as string;
    return toLine({ path: pathData, lines: kind === "bytes" ? { bytes: value } : { text: value }, line_number: lineNumber }, event[1] === "match");
  }
  // A cut head may end inside a UTF-8 character (decoded as U+FFFD), an escape or a base64 quad.
  const text = kind === "bytes" ? Buffer.from(body.slice(0, body.length - (body.length % 4)), "base64").toString("utf8") : jsonStringPrefix(body);
  return toLine({ path: pathData, lines: { text: text.replace(/\uFFFD$/, "") }, line_number: lineNumber }, event[1] === "match");
}

/** Where the JSON string whose body starts `body` ends: its first quote not escaped, or -1. */
function closingQuote(body: string): number {
  for (let at = body.indexOf('"'); at !== -1; at = body.indexOf('"', at + 1)) {
    let slashes = 0;
    while (body[at - 1 - slashes] === "\\") slashes++;
    if (slashes % 2 === 0) return at;
  }
  return -1;
}

/** The text of a JSON string's body, or of its longest prefix that ends between two escapes. */
function jsonStringPrefix(body: string): string {
  // An escape is at most 6 characters (\uXXXX): one of the first 6 cuts ends between two.
  for (let cut = 0; cut <= 6 && cut <= body.length; cut++) {
    try {
      return JSON.parse(`"${body.slice(0, body.length - cut)}"`) as string;
    } catch {
      // Cut inside an escape: try shorter.
    }
  }
  return "";
}

export function toLine(data: RgData, isMatch: boolean): GrepLine {
  const file = data.path.text ?? Buffer.from(data.path.bytes ?? "", "base64").toString("utf8");
  const text = data.lines.text ?? Buffer.from(data.lines.bytes ?? "", "base64").toString("utf8");
  return { file: file.replace(/^\.\//, ""), line: data.line_number, text: text.replace(/\r?\n$/, ""), isMatch };
}
