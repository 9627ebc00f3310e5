// How file tools show their work: a unified diff (edit, and write as added lines) and a file
// excerpt with line numbers (read's "   N\tline" output).
import { memo } from "react";

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

/** A preview diff from edit arguments (before the tool has run and produced the real one). */
export function editArgsDiff(path: string, edits: unknown): string {
  if (!Array.isArray(edits)) return "";
  const out = [`--- ${path}`, `+++ ${path}`];
  for (const edit of edits as { oldText?: unknown; newText?: unknown }[]) {
    out.push("@@ edit @@");
    for (const line of String(edit.oldText ?? "").split("\n")) out.push(`-${line}`);
    for (const line of String(edit.newText ?? "").split("\n")) out.push(`+${line}`);
  }
  return out.join("\n");
}

/** write's content as an all-added diff, cut to `maxLines`. */
export function writeArgsDiff(path: string, content: unknown, maxLines = 60): string {
  const lines = String(content ?? "").split("\n");
  const shown = lines.slice(0, maxLines).map((l) => `+${l}`);
  if (lines.length > maxLines) shown.push(`@@ ${lines.length - maxLines} more lines @@`);
  return [`+++ ${path}`, ...shown].join("\n");
}
