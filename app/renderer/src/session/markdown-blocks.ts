// Splits Markdown into top-level blocks that parse the same alone as together, so a long message
// is parsed block by block and a streaming message re-parses only its last block. Pure; never
// throws. Splits only at a blank line outside fenced code, before a line that starts a new
// top-level block: not a list item and indented less than 4 spaces (not at all after a list, whose
// items may continue with indented paragraphs), so loose lists and indented code stay whole. Text that uses constructs reaching across blocks (link reference or footnote
// definitions, raw HTML comments or blocks) is returned whole.

const FENCE_OPEN = /^ {0,3}(`{3,}|~{3,})/;
const CROSS_BLOCK = /^ {0,3}\[[^\]]+\]:|<!--|^ {0,3}<(?:script|pre|style|textarea)\b/im;
const LIST_ITEM = /^ {0,3}(?:[-*+]|\d{1,9}[.)])(?:[ \t]|$)/;

export function splitMarkdownBlocks(text: string): string[] {
  if (CROSS_BLOCK.test(text)) return [text];
  const lines = text.split("\n");
  const blocks: string[] = [];
  let start = 0; // line index where the current block starts
  let fence: { char: string; length: number } | null = null;
  let previousBlank = false;
  let hasContent = false;
  let inList = false; // the current block has a list item: its items may continue indented
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!;
    if (fence) {
      const close = /^ {0,3}(`{3,}|~{3,})[ \t]*$/.exec(line);
      if (close && close[1]![0] === fence.char && close[1]!.length >= fence.length) fence = null;
      previousBlank = false;
      continue;
    }
    const blank = line.trim() === "";
    const listItem = LIST_ITEM.test(line);
    if (!blank && previousBlank && hasContent && !listItem && !(inList ? /^\s/ : /^(?: {4}|\t)/).test(line)) {
      blocks.push(lines.slice(start, i).join("\n"));
      start = i;
      inList = false;
    }
    if (listItem) inList = true;
    const open = FENCE_OPEN.exec(line);
    if (open && !(open[1]![0] === "`" && line.slice(line.indexOf(open[1]!) + open[1]!.length).includes("`"))) {
      fence = { char: open[1]![0]!, length: open[1]!.length };
    }
    if (!blank) hasContent = true;
    previousBlank = blank;
  }
  blocks.push(lines.slice(start).join("\n"));
  return blocks;
}
