// Markdown for assistant text: react-markdown builds React elements (no innerHTML), GFM tables and
// lists, and code blocks highlighted by highlight.js through rehype-highlight (a syntax tree, no
// eval, so it works under the CSP). Links open nothing inside the app window.
import { memo } from "react";
import ReactMarkdown, { type Components } from "react-markdown";
import rehypeHighlight from "rehype-highlight";
import remarkGfm from "remark-gfm";

const components: Components = {
  a: ({ href, children }) => (
    <a href={href} target="_blank" rel="noreferrer noopener">
      {children}
    </a>
  ),
  // Remote images would break the CSP (and leak): show the alt text and address instead.
  img: ({ alt, src }) => <span className="muted">[image: {alt ?? ""} {typeof src === "string" ? src : ""}]</span>,
};

const remarkPlugins = [remarkGfm];
const rehypePlugins = [[rehypeHighlight, { detect: false, ignoreMissing: true }] as [typeof rehypeHighlight, object]];

export const Markdown = memo(function Markdown({ text }: { text: string }) {
  return (
    <div className="markdown">
      <ReactMarkdown remarkPlugins={remarkPlugins} rehypePlugins={rehypePlugins} components={components}>
        {text}
      </ReactMarkdown>
    </div>
  );
});
