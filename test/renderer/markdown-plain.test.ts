// plainParagraph: a block it accepts must render exactly as react-markdown (with the plugins
// Markdown.tsx uses) renders it; it must accept the plain prose a model streams.
import { createElement } from "react";
import { renderToStaticMarkup } from "react-dom/server";
import ReactMarkdown from "react-markdown";
import rehypeHighlight from "rehype-highlight";
import remarkGfm from "remark-gfm";
import { describe, expect, it } from "vitest";
import { plainParagraph } from "../../app/renderer/src/session/markdown-plain.ts";

const highlight = rehypeHighlight({ detect: false });
const parsed = (text: string) => renderToStaticMarkup(createElement(ReactMarkdown, { remarkPlugins: [remarkGfm], rehypePlugins: [() => highlight] }, text));
const shown = (plain: string) => renderToStaticMarkup(createElement("p", null, plain));

/** A small seeded generator (mulberry32), so a failure can be replayed. */
function random(seed: number): () => number {
  return () => {
    seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function texts(seed: number, alphabet: string[], count: number): string[] {
  const next = random(seed);
  return Array.from({ length: count }, () => {
    const length = Math.floor(next() * 60);
    let text = "";
    for (let i = 0; i < length; i++) text += alphabet[Math.floor(next() * alphabet.length)]!;
    return text;
  });
}

/** Texts of lines that start with a letter (after some indentation), the rest drawn from `alphabet`. */
function lineTexts(seed: number, alphabet: string[], count: number): string[] {
  const next = random(seed);
  const pick = (from: readonly string[]) => from[Math.floor(next() * from.length)]!;
  return Array.from({ length: count }, () => {
    const lines = Array.from({ length: 1 + Math.floor(next() * 4) }, () => {
      let line = " ".repeat(Math.floor(next() * 6)) + pick([..."abwWxyzT"]);
      for (let i = Math.floor(next() * 20); i > 0; i--) line += pick(alphabet);
      return line;
    });
    return lines.join("\n");
  });
}

const PLAIN = [..."abwWxyz019", " ", " ", " ", "\n", "  \n", ".", ",", ";", ":", "?", "!", "'", '"', "(", ")", "-", "www.", "    "];
const TRICKY = [...PLAIN, ..."*_`#>[]<&\\|~=+@/\t", "é", "1. ", "- ", "http://", "\n\n", "---", "==="];

describe("plainParagraph", () => {
  it("accepts plain prose and streamed words, shown as the parser shows them", () => {
    const cases = [
      " w0 w1 w2 w3 word\n",
      "The build failed: the test (app.test) expected 3, got 4.\nIt runs again now!",
      "  Indented first line\n        and a deeply indented continuation   \n",
      "Line one \nline two",
      "\n\nSurrounded by blank lines\n\n",
      "Quotes \"like this\" and 'this' - and a dash.",
    ];
    for (const text of cases) {
      const plain = plainParagraph(text);
      expect(plain, text).not.toBeNull();
      expect(shown(plain!), text).toBe(parsed(text));
    }
  });

  it("leaves to the parser what may be more than a plain paragraph", () => {
    const cases = [
      "",
      "  \n ",
      "    indented code",
      "1. a list",
      "a\n2) list",
      "- item",
      "# heading",
      "Title\n===",
      "Title\n---",
      "a  \nhard break",
      "a\n\nb",
      "see www.example.com",
      "mail me@example.com",
      "some `code`",
      "**bold**",
      "a_b_c",
      "[link](x)",
      "<b>html</b>",
      "a &amp; b",
      "a | b",
      "~~gone~~",
      "tab\there",
      "café",
      "x\\",
    ];
    for (const text of cases) expect(plainParagraph(text), JSON.stringify(text)).toBeNull();
  });

  it("renders every accepted text exactly as react-markdown does (generated texts)", () => {
    let accepted = 0;
    for (const [seed, alphabet] of [
      [1, PLAIN],
      [2, TRICKY],
      [3, PLAIN],
    ] as const) {
      for (const text of [...texts(seed, alphabet, 800), ...lineTexts(seed, alphabet, 1200)]) {
        const plain = plainParagraph(text);
        if (plain === null) continue;
        accepted++;
        expect(shown(plain), JSON.stringify(text)).toBe(parsed(text));
      }
    }
    // Enough accepted texts for the comparison to mean something.
    expect(accepted).toBeGreaterThan(300);
  });
});
