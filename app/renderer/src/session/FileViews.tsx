// How file tools show their work: a unified diff (edit, and write as added lines) and a file
// excerpt with line numbers (read's "   N\tline" output).
import { memo } from "react";

export { editArgsDiff, writeCardDiff } from "./diff-text";

export const DiffView = memo(function DiffView({ diff, label }: { diff: string; label: string }) {
  const lines = diff.replace(/\n$/, "").split("\n");
  return (
    <pre className="diff" aria-label={label}>
      {lines.map((line, i) => {
        if (line.startsWith("+++") || line.startsWith("---") || line.startsWith("Index:") || line.startsWith("=====")) return <div key={i} className="hunk">{line}</div>;
        const cls = line.startsWith("@@") ? "hunk" : line.startsWith("+") ? "add" : line.startsWith("-") ? "del" : undefined;
        return (
          <div key={i} className={cls}>
            {line || " "}
          </div>
        );
      })}
    </pre>
  );
});

/** Parses read's numbered lines; lines that are not numbered (notes) are shown as they are. */
export const ExcerptView = memo(function ExcerptView({ text }: { text: string }) {
  const lines = text.replace(/\n$/, "").split("\n");
  return (
    <pre className="excerpt" aria-label="File excerpt">
      {lines.map((line, i) => {
        const m = /^\s*(\d+)\t(.*)$/.exec(line);
        return m ? (
          <div key={i}>
            <span className="ln">{m[1]}</span>
            {m[2]}
          </div>
        ) : (
          <div key={i} className="muted">
            {line}
          </div>
        );
      })}
    </pre>
  );
});
