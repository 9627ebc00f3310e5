// How file tools show their work: a diff (edit, and write; the view itself is DiffView.tsx,
// re-exported here for those who import it from this module) and a file excerpt with line numbers
// (read's "   N\tline" output).
import { memo } from "react";

export { editArgsDiff, writeCardDiff } from "./diff-text";
export { DiffView } from "./DiffView";

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
