// A small reader for the S-expressions of Seatbelt profiles (TinyScheme syntax as sandbox-exec
// reads it): lists, symbols, numbers, strings with backslash escapes, #"regex" literals, #t/#f and
// `;` comments. Throws on anything unbalanced or unterminated: the tests use it to check that a
// generated profile parses, and what each string in it says.
export type Sexp = { list: Sexp[] } | { symbol: string } | { string: string } | { regex: string };

export function parseSexps(text: string): Sexp[] {
  let i = 0;
  const fail = (what: string): never => {
    throw new Error(`${what} at offset ${i}: ${JSON.stringify(text.slice(Math.max(0, i - 20), i + 20))}`);
  };
  const skip = () => {
    while (i < text.length) {
      if (/\s/.test(text[i]!)) i++;
      else if (text[i] === ";") while (i < text.length && text[i] !== "\n") i++;
      else break;
    }
  };
  const readString = (): string => {
    i++; // opening quote
    let out = "";
    while (i < text.length && text[i] !== '"') {
      if (text[i] === "\\") {
        const next = text[i + 1];
        if (next === undefined) fail("unterminated escape");
        out += next === "n" ? "\n" : next === "t" ? "\t" : next;
        i += 2;
      } else out += text[i++];
    }
    if (text[i] !== '"') fail("unterminated string");
    i++;
    return out;
  };
  const read = (): Sexp => {
    skip();
    const c = text[i];
    if (c === undefined) return fail("unexpected end");
    if (c === "(") {
      i++;
      const list: Sexp[] = [];
      for (;;) {
        skip();
        if (text[i] === undefined) fail("unclosed list");
        if (text[i] === ")") {
          i++;
          return { list };
        }
        list.push(read());
      }
    }
    if (c === ")") return fail("unexpected )");
    if (c === '"') return { string: readString() };
    if (c === "#" && text[i + 1] === '"') {
      i++;
      return { regex: readString() };
    }
    const start = i;
    while (i < text.length && !/[\s()";]/.test(text[i]!)) i++;
    if (i === start) fail("empty atom");
    return { symbol: text.slice(start, i) };
  };
  const forms: Sexp[] = [];
  for (skip(); i < text.length; skip()) forms.push(read());
  return forms;
}

export const head = (s: Sexp): string | undefined => ("list" in s && s.list[0] && "symbol" in s.list[0] ? s.list[0].symbol : undefined);
