// Splits a streamed Chat Completions `content` into thinking and text, for local models that write
// their reasoning inline as `<think>…</think>` (DeepSeek-R1 distills, QwQ, Qwen3) instead of a
// `reasoning_content` field. Only a `<think>` at the very start of the content (after optional
// whitespace) opens reasoning; a later literal "<think>" is ordinary text. Tags may be split across
// chunks anywhere, so the splitter holds back at most the characters that could still be the start
// of a tag, plus whitespace (invisible), and never delays anything else. Whitespace right inside
// the tags and between `</think>` and the answer is dropped. A `</think>` without an opening tag is
// left as text: deciding otherwise would mean holding back the visible answer. Never throws.

export interface ContentPiece {
  kind: "thinking" | "text";
  text: string;
}

const OPEN = "<think>";
const CLOSE = "</think>";

/** start: nothing visible yet; thinking: inside the tags; answer: after `</think>`, skipping whitespace; text: pass-through. */
type State = "start" | "thinking" | "answer" | "text";

export class ThinkTagSplitter {
  private state: State = "start";
  /** Characters received but not yet emitted: whitespace and/or a possible tag prefix. */
  private held = "";
  /** Whether any thinking has been emitted (leading whitespace inside `<think>` is dropped). */
  private thinkingBegun = false;

  /** What is held back right now (for tests: never more than whitespace plus a tag prefix). */
  get pending(): string {
    return this.held;
  }

  push(chunk: string): ContentPiece[] {
    const out: ContentPiece[] = [];
    let input = this.held + chunk;
    this.held = "";
    while (input !== "") {
      if (this.state === "start") {
        const body = input.trimStart();
        if (body.startsWith(OPEN)) {
          this.state = "thinking";
          input = body.slice(OPEN.length);
        } else if (OPEN.startsWith(body)) {
          this.held = input;
          return out;
        } else {
          this.state = "text";
        }
      } else if (this.state === "thinking") {
        const end = input.indexOf(CLOSE);
        if (end >= 0) {
          this.thinking(out, input.slice(0, end).trimEnd());
          this.state = "answer";
          input = input.slice(end + CLOSE.length);
        } else {
          const keep = heldSuffixLength(input, CLOSE);
          this.thinking(out, input.slice(0, input.length - keep));
          this.held = input.slice(input.length - keep);
          return out;
        }
      } else if (this.state === "answer") {
        input = input.trimStart();
        if (input !== "") this.state = "text";
      } else {
        out.push({ kind: "text", text: input });
        return out;
      }
    }
    return out;
  }

  /**
   * Emits whatever is held and turns into a pass-through: at the end of the stream (an unclosed
   * `<think>` keeps what arrived as thinking), or when tool calls end the prose.
   */
  flush(): ContentPiece[] {
    const out: ContentPiece[] = [];
    const held = this.held;
    this.held = "";
    if (this.state === "start" && held !== "") out.push({ kind: "text", text: held });
    if (this.state === "thinking") this.thinking(out, held.trimEnd());
    this.state = "text";
    return out;
  }

  private thinking(out: ContentPiece[], text: string): void {
    const piece = this.thinkingBegun ? text : text.trimStart();
    if (piece === "") return;
    this.thinkingBegun = true;
    out.push({ kind: "thinking", text: piece });
  }
}

/** How many trailing characters of `text` to hold: a proper prefix of `tag`, and the whitespace before it. */
function heldSuffixLength(text: string, tag: string): number {
  let partial = 0;
  for (let length = Math.min(tag.length - 1, text.length); length > 0; length--) {
    if (text.endsWith(tag.slice(0, length))) {
      partial = length;
      break;
    }
  }
  let start = text.length - partial;
  while (start > 0 && /\s/.test(text[start - 1]!)) start--;
  return text.length - start;
}
