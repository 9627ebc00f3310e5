// A bounded log of one tool call's raw terminal output (escape sequences and colours included), as
// the terminal view showed it: the first `headChars` characters and the latest `tailChars`, with
// the count of what was left out between them. Memory stays bounded whatever the output size.
// `text()` is what a reopened session's terminal replays: head, a dim marker naming what was
// omitted (and what the tool skipped before the view saw it), then the tail from a line start.
export const TERMINAL_LOG_HEAD_CHARS = 128 * 1024;
export const TERMINAL_LOG_TAIL_CHARS = 128 * 1024;

export class TerminalLog {
  readonly #headChars: number;
  readonly #tailChars: number;
  #head = "";
  #tail: string[] = [];
  #tailLength = 0;
  #total = 0;
  /** Characters the tool dropped before they reached the view (the view never had them). */
  #skipped = 0;
  /** Bumped on every change, so a writer knows whether its copy is current. */
  version = 0;

  constructor(headChars = TERMINAL_LOG_HEAD_CHARS, tailChars = TERMINAL_LOG_TAIL_CHARS) {
    this.#headChars = headChars;
    this.#tailChars = tailChars;
  }

  get totalChars(): number {
    return this.#total;
  }

  get skippedChars(): number {
    return this.#skipped;
  }

  /** Whether the head is complete (it never changes again). */
  get headFull(): boolean {
    return this.#head.length >= this.#headChars;
  }

  append(chunk: string): void {
    if (chunk === "") return;
    this.version++;
    this.#total += chunk.length;
    let rest = chunk;
    if (this.#head.length < this.#headChars) {
      const room = this.#headChars - this.#head.length;
      this.#head += rest.slice(0, room);
      rest = rest.slice(room);
      if (rest === "") return;
    }
    this.#tail.push(rest);
    this.#tailLength += rest.length;
    while (this.#tail.length > 1 && this.#tailLength - this.#tail[0]!.length >= this.#tailChars) {
      this.#tailLength -= this.#tail.shift()!.length;
    }
  }

  skip(chars: number): void {
    if (chars <= 0) return;
    this.version++;
    this.#skipped += chars;
  }

  get head(): string {
    return this.#head;
  }

  /** The kept tail; when something before it was dropped, it starts at a line start where possible. */
  get tail(): string {
    let tail = this.#tail.join("");
    if (tail.length > this.#tailChars) tail = tail.slice(tail.length - this.#tailChars);
    if (this.#total - this.#head.length - tail.length > 0) {
      const newline = tail.indexOf("\n");
      if (newline >= 0 && newline < 4096) tail = tail.slice(newline + 1);
    }
    return tail;
  }

  text(): string {
    const tail = this.tail;
    return joinLog(this.#head, tail, this.#total - this.#head.length - tail.length, this.#skipped);
  }
}

/** Head, a marker for what is missing (if anything), tail: what a terminal replays. */
export function joinLog(head: string, tail: string, omittedChars: number, skippedChars: number): string {
  const missing = omittedChars + skippedChars;
  if (missing === 0) return head + tail;
  const parts = [];
  if (omittedChars > 0) parts.push(`${omittedChars} characters of output in the middle were not kept`);
  if (skippedChars > 0) parts.push(`${skippedChars} characters were skipped while the view caught up`);
  return `${head}\r\n\x1b[0m\x1b[2m[… ${parts.join("; ")} …]\x1b[0m\r\n${tail}`;
}
