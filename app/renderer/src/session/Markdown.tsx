// Markdown for assistant text: react-markdown builds React elements (no innerHTML), GFM tables and
// lists, and code blocks highlighted by highlight.js through rehype-highlight (a syntax tree, no
// eval, so it works under the CSP). Links open nothing inside the app window.
// The text is rendered block by block (splitMarkdownBlocks), each block memoized: a streaming
// message re-parses only its growing last block, not the whole text on every update; a block
// that can only be a plain paragraph (markdown-plain.ts) is shown as the parser would show it,
// without parsing.
import { memo, useMemo } from "react";
import ReactMarkdown, { type Components } from "react-markdown";
import rehypeHighlight from "rehype-highlight";
import remarkGfm from "remark-gfm";
import { splitMarkdownBlocks } from "./markdown-blocks";
import { plainParagraph } from "./markdown-plain";

const components: Components = {
  a: ({ href, children }) => (
    <a href={href} target="_blank" rel="noreferrer noopener">
      {children}
    </a>
  ),
  // Remote images would break the CSP (and leak): show the alt text and address instead.
  img: ({ alt, src }) => (
    <span className="muted">
      [image: {alt ?? ""} {typeof src === "string" ? src : ""}]
    </span>
  ),
};

// rehype-highlight builds its highlighter (registering ~40 languages) each time its plugin is
// attached, which react-markdown does on every render: build it once and reuse the transform.
const highlight = rehypeHighlight({ detect: false });
const cachedHighlight = () => highlight;
const remarkPlugins = [remarkGfm];
const rehypePlugins = [cachedHighlight];

const MarkdownBlock = memo(function MarkdownBlock({ text }: { text: string }) {
  const plain = plainParagraph(text);
  if (plain !== null) return <p>{plain}</p>;
  return (
    <ReactMarkdown remarkPlugins={remarkPlugins} rehypePlugins={rehypePlugins} components={components}>
      {text}
    </ReactMarkdown>
  );
});

export const Markdown = memo(function Markdown({ text }: { text: string }) {
  const blocks = useMemo(() => splitMarkdownBlocks(text), [text]);
  return (
    <div className="markdown">
      {blocks.map((block, i) => (
        <MarkdownBlock key={i} text={block} />
      ))}
    </div>
  );
});
