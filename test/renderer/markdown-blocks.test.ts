// splitMarkdownBlocks: the blocks a message is rendered in must parse as the whole text does.
import { describe, expect, it } from "vitest";
import { splitMarkdownBlocks } from "../../app/renderer/src/session/markdown-blocks.ts";

describe("splitMarkdownBlocks", () => {
  it("splits paragraphs at blank lines and keeps the text whole when joined", () => {
    const text = "First paragraph.\n\n Second, with a leading space.\n\n# Heading\n\nLast";
    const blocks = splitMarkdownBlocks(text);
    expect(blocks).toEqual(["First paragraph.\n", " Second, with a leading space.\n", "# Heading\n", "Last"]);
    expect(blocks.join("\n")).toBe(text);
  });

  it("never splits inside fenced code, a loose list or indented code", () => {
    expect(splitMarkdownBlocks("```ts\na\n\nb\n```\n\nafter")).toEqual(["```ts\na\n\nb\n```\n", "after"]);
    expect(splitMarkdownBlocks("~~~~\n```\n\nx\n~~~~\n\ny")).toEqual(["~~~~\n```\n\nx\n~~~~\n", "y"]);
    expect(splitMarkdownBlocks("- one\n\n- two\n\n  more of two\n\nafter")).toEqual(["- one\n\n- two\n\n  more of two\n", "after"]);
    expect(splitMarkdownBlocks("text\n\n    code\n\n    more code")).toEqual(["text\n\n    code\n\n    more code"]);
  });

  it("keeps text with link or footnote definitions or HTML comments whole", () => {
    expect(splitMarkdownBlocks("See [docs].\n\nMore.\n\n[docs]: https://example.com")).toHaveLength(1);
    expect(splitMarkdownBlocks("Note[^1].\n\nMore.\n\n[^1]: A footnote.")).toHaveLength(1);
    expect(splitMarkdownBlocks("<!--\n\n-->\n\ntext")).toHaveLength(1);
  });
});
