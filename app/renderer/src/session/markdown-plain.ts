// Recognizes a Markdown block that can only be one plain paragraph, and gives its text as the
// parser would show it, so it is rendered without parsing (a streaming message's open block was
// parsed again on every frame: about 1.5 ms of micromark with GFM for 50 words, several on a
// busy machine). Pure; never throws. Conservative: null for anything else, which the caller
// parses. Accepted: ASCII letters, digits, spaces, line breaks and . , ; : ? ! ' " ( ) -, every
// line starting with a letter (after its indentation; the first indented under 4 spaces), no
// blank line between lines, no "www." (a GFM autolink) and no line ending in two spaces (a hard
// break). None of these characters can open an inline construct (emphasis, code, links, HTML,
// references, escapes, autolinks) and no such line starts a block (heading, list, quote, fence,
// table, thematic break, setext underline), so CommonMark makes it one paragraph whose text is
// its lines without their leading and trailing spaces, joined by line breaks.
// test/renderer/markdown-plain.test.ts checks it against react-markdown's own output.

const ALLOWED = /^[A-Za-z0-9 \n.,;:?!'"()-]*$/;
const AUTOLINK = /www\./i;

export function plainParagraph(block: string): string | null {
  if (!ALLOWED.test(block) || AUTOLINK.test(block)) return null;
  const lines = block.split("\n");
  let first = 0;
  let last = lines.length - 1;
  while (first <= last && lines[first]!.trim() === "") first++;
  while (last >= first && lines[last]!.trim() === "") last--;
  if (first > last) return null;
  if (/^ {4}/.test(lines[first]!)) return null; // indented code
  const out: string[] = [];
  for (let i = first; i <= last; i++) {
    const line = lines[i]!;
    const text = line.trim();
    if (!/^[A-Za-z]/.test(text)) return null; // a blank line, or a line that may start a block
    if (i < last && / {2}$/.test(line)) return null; // a hard line break
    out.push(text);
  }
  return out.join("\n");
}
