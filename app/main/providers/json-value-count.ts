// Counts the values of a JSON text as it streams, in one pass over each piece: a comma, a colon or
// an opening bracket outside strings each starts a value (the text's first value is not counted).
// MessageBuilder stops parsing a tool call's partial arguments once they hold more values than
// partial-json parses quickly (it is slow per value, not per character). Never throws.
export class JsonValueCount {
  #inString = false;
  #escaped = false;
  #count = 0;

  /** The count of a whole text. */
  static of(text: string): number {
    const counter = new JsonValueCount();
    counter.add(text);
    return counter.count;
  }

  get count(): number {
    return this.#count;
  }

  add(piece: string): void {
    let inString = this.#inString;
    let escaped = this.#escaped;
    let count = this.#count;
    for (let i = 0; i < piece.length; i++) {
      const c = piece.charCodeAt(i);
      if (inString) {
        if (escaped) escaped = false;
        else if (c === 0x5c /* \ */) escaped = true;
        else if (c === 0x22 /* " */) inString = false;
      } else if (c === 0x22) inString = true;
      else if (c === 0x2c /* , */ || c === 0x3a /* : */ || c === 0x5b /* [ */ || c === 0x7b /* { */) count++;
    }
    this.#inString = inString;
    this.#escaped = escaped;
    this.#count = count;
  }
}
