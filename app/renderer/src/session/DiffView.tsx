// The diff view, reusable wherever a change is shown (the permission dialog, an edit or write card
// when expanded, a turn's files changed): each file's name with "+3 −1", its hunks syntax
// highlighted, with old and new line numbers, inline or side by side (one choice for every diff
// view, remembered). Notes of a bounded diff ("too large to show in full", "cut") are shown as
// notes. Props: `diff` (unified diff text as the main process or the checkpoints send it), `label`
// (its accessible name), optional `path` (when the diff has no file header).
import { memo, useMemo, useSyncExternalStore } from "react";
import { highlightFile, type Segment } from "./diff-highlight";
import { parseDiff, splitRows, type DiffFile, type DiffLine } from "./diff-parse";
import "./session-content.css";

export type DiffMode = "inline" | "split";

const MODE_KEY = "lathe.diffMode";
const modeListeners = new Set<() => void>();

function readMode(): DiffMode {
  try {
    return localStorage.getItem(MODE_KEY) === "split" ? "split" : "inline";
  } catch {
    return "inline";
  }
}

function setMode(mode: DiffMode): void {
  try {
    localStorage.setItem(MODE_KEY, mode);
  } catch {
    // A storage that refuses keeps the choice for this page only.
  }
  current = mode;
  for (const l of modeListeners) l();
}

let current: DiffMode | null = null;
const subscribe = (listener: () => void) => {
  modeListeners.add(listener);
  return () => modeListeners.delete(listener);
};
const snapshot = () => (current ??= readMode());

/** The diff layout chosen for every diff view, and its setter. */
export function useDiffMode(): [DiffMode, (mode: DiffMode) => void] {
  return [useSyncExternalStore(subscribe, snapshot), setMode];
}

/** "+3 −1", coloured. */
export function DiffCounts({ added, removed }: { added: number; removed: number }) {
  return (
    <span className="diff-counts" aria-label={`${added} line${added === 1 ? "" : "s"} added, ${removed} removed`}>
      <span className="added">+{added}</span> <span className="removed">−{removed}</span>
    </span>
  );
}

export const DiffView = memo(function DiffView({ diff, label, path }: { diff: string; label: string; path?: string }) {
  const files = useMemo(() => parseDiff(diff), [diff]);
  const [mode, choose] = useDiffMode();
  return (
    <div className="diffview" role="group" aria-label={label} data-mode={mode}>
      <div className="diff-toolbar">
        <span className="diff-title">{files.length === 1 ? <FileTitle file={files[0]!} fallback={path} /> : `${files.length} files`}</span>
        <span role="group" aria-label="Diff layout" className="segmented">
          <button type="button" className="small" aria-pressed={mode === "inline"} onClick={() => choose("inline")}>
            Inline
          </button>
          <button type="button" className="small" aria-pressed={mode === "split"} onClick={() => choose("split")}>
            Side by side
          </button>
        </span>
      </div>
      <div className="diff-body">
        {files.map((file, i) => (
          <FileDiff key={`${file.path}-${i}`} file={file} mode={mode} title={files.length > 1 ? <FileTitle file={file} fallback={path} /> : null} fallback={path} />
        ))}
      </div>
    </div>
  );
});

function FileTitle({ file, fallback }: { file: DiffFile; fallback?: string }) {
  return (
    <>
      <span className="diff-path">{file.path || fallback || "file"}</span> {(file.added > 0 || file.removed > 0) && <DiffCounts added={file.added} removed={file.removed} />}
    </>
  );
}

function FileDiff({ file, mode, title, fallback }: { file: DiffFile; mode: DiffMode; title: React.ReactNode; fallback?: string }) {
  const colours = useMemo(() => highlightFile(file.path ? file : { ...file, path: fallback ?? "" }), [file, fallback]);
  return (
    <div className="diff-file">
      {title && <div className="diff-file-title">{title}</div>}
      {file.hunks.map((hunk, h) =>
        mode === "inline" ? (
          <div key={h} className="diff-hunk inline">
            {hunk.lines.map((line, i) => (line.kind === "note" ? <Note key={i} line={line} /> : <InlineRow key={i} line={line} segments={colours.get(line)} />))}
          </div>
        ) : (
          <div key={h} className="diff-hunk split">
            {splitRows(hunk).map((row, i) =>
              row.note ? (
                <Note key={i} line={row.note} />
              ) : (
                <div key={i} className="diff-row">
                  <Side line={row.left} segments={row.left ? colours.get(row.left) : undefined} side="old" />
                  <Side line={row.right} segments={row.right ? colours.get(row.right) : undefined} side="new" />
                </div>
              ),
            )}
          </div>
        ),
      )}
    </div>
  );
}

const SIGN = { add: "+", del: "-", context: " ", note: "" } as const;

function Code({ line, segments }: { line: DiffLine; segments: Segment[] | undefined }) {
  return (
    <code className="diff-code">
      {segments
        ? segments.map((s, i) =>
            s.className ? (
              <span key={i} className={s.className}>
                {s.text}
              </span>
            ) : (
              s.text
            ),
          )
        : line.text}
      {line.text === "" ? " " : null}
    </code>
  );
}

function InlineRow({ line, segments }: { line: DiffLine; segments: Segment[] | undefined }) {
  return (
    <div className={`diff-row ${line.kind}`}>
      <span className="ln" aria-hidden="true">
        {line.oldLine ?? ""}
      </span>
      <span className="ln" aria-hidden="true">
        {line.newLine ?? ""}
      </span>
      <span className="sign">{SIGN[line.kind]}</span>
      <Code line={line} segments={segments} />
    </div>
  );
}

function Side({ line, segments, side }: { line: DiffLine | null; segments: Segment[] | undefined; side: "old" | "new" }) {
  if (!line) return <div className={`diff-side empty ${side}`} />;
  const kind = line.kind === "context" ? "context" : line.kind;
  return (
    <div className={`diff-side ${side} ${kind}`}>
      <span className="ln" aria-hidden="true">
        {side === "old" ? (line.oldLine ?? "") : (line.newLine ?? "")}
      </span>
      <span className="sign">{line.kind === "context" ? " " : SIGN[line.kind]}</span>
      <Code line={line} segments={segments} />
    </div>
  );
}

function Note({ line }: { line: DiffLine }) {
  return <div className="diff-note">{line.text}</div>;
}
