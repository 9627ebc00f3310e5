// What the agent changed on disk, from the checkpoints: under each turn that changed files, a
// collapsible "Files changed (N)" list (added, modified, deleted; by which tool call when known;
// a file over the size limit is marked as not stored), each file opening its diff; and the
// session's panel of all its changes, with its rewinds and their Undo.
import { memo, useMemo, useState } from "react";
import { MAX_LISTED_FILES, type ChangedFile, type CheckpointList, type FileDiff, type RewindInfo, type TurnChanges } from "../../../shared/ipc/checkpoint-schemas";
import { getApi } from "../api/client";
import { errorText, unwrap } from "../state/api-hooks";
import { DiffView } from "./FileViews";

/** A tool call's name for "by edit", from the transcript's cards. */
export type CallNamer = (toolCallId: string) => string | undefined;

const LETTER = { added: "A", modified: "M", deleted: "D" } as const;

function byWhom(file: ChangedFile, name: CallNamer): string {
  if (file.toolCallIds.length === 0) return "";
  if (file.certain) return `by ${name(file.toolCallIds[0]!) ?? "a tool call"}`;
  return `by one of ${file.toolCallIds.length} commands`;
}

function mb(bytes: number): string {
  return `${Math.round(bytes / (1024 * 1024))} MB`;
}

export const FileRow = memo(function FileRow({
  sessionId,
  file,
  fromId,
  toId,
  name,
  maxFileBytes,
}: {
  sessionId: number;
  file: ChangedFile;
  fromId: number;
  toId: number;
  name: CallNamer;
  maxFileBytes: number;
}) {
  const [open, setOpen] = useState(false);
  const [diff, setDiff] = useState<FileDiff | null>(null);
  const [error, setError] = useState<string | null>(null);
  const toggle = () => {
    const next = !open;
    setOpen(next);
    if (next && !diff && !file.large) {
      unwrap(getApi().checkpoints.diff({ sessionId, fromId, toId, fileId: file.id })).then(setDiff, (e: unknown) => setError(errorText(e)));
    }
  };
  return (
    <li className={`changed-file ${file.status}`} data-file={file.path}>
      <button className="link" onClick={toggle} aria-expanded={open} aria-label={`${file.status} ${file.path}`}>
        <span className="status-letter" title={file.status}>
          {LETTER[file.status]}
        </span>{" "}
        {file.path}
      </button>{" "}
      <span className="muted">{byWhom(file, name)}</span>
      {file.large && <span className="muted"> · over {mb(maxFileBytes)}: recorded as changed, content not stored (no diff, not restorable)</span>}
      {open && !file.large && (
        <div className="changed-diff">
          {error ? (
            <div className="error-text">{error}</div>
          ) : !diff ? (
            <div className="muted">Loading the diff…</div>
          ) : diff.binary ? (
            <div className="muted">Binary file: no text diff.</div>
          ) : diff.diff === "" ? (
            <div className="muted">No difference in content (only the file's mode, or changed and changed back).</div>
          ) : (
            <DiffView diff={diff.diff} label={`Diff of ${file.path}`} />
          )}
        </div>
      )}
    </li>
  );
});

/** A turn lists at most MAX_LISTED_FILES files (one command can change 100,000). */
function notListedText(n: number): string {
  return `…and ${n.toLocaleString("en-US")} more change${n === 1 ? "" : "s"}, not listed (a turn lists its first ${MAX_LISTED_FILES.toLocaleString("en-US")})`;
}

/** The files one turn changed, under its message. */
export const TurnFiles = memo(function TurnFiles({ sessionId, turn, name, maxFileBytes }: { sessionId: number; turn: TurnChanges; name: CallNamer; maxFileBytes: number }) {
  if (turn.afterId === null || turn.files.length === 0) return null;
  return (
    <details className="files-changed" aria-label="Files changed by this turn">
      <summary>
        Files changed ({turn.fileCount.toLocaleString("en-US")}){turn.files.some((f) => f.large) ? " · some not stored" : ""}
      </summary>
      <ul>
        {turn.files.map((f) => (
          <FileRow key={f.id} sessionId={sessionId} file={f} fromId={turn.beforeId} toId={turn.afterId!} name={name} maxFileBytes={maxFileBytes} />
        ))}
        {turn.fileCount > turn.files.length && <li className="muted not-listed">{notListedText(turn.fileCount - turn.files.length)}</li>}
      </ul>
    </details>
  );
});

interface SessionFile {
  file: ChangedFile;
  fromId: number;
  toId: number;
  turns: number;
}

/** Every file the session's turns changed: first checkpoint before to last checkpoint after. */
function sessionFiles(turns: readonly TurnChanges[]): SessionFile[] {
  const files = new Map<string, SessionFile>();
  for (const turn of turns) {
    if (turn.afterId === null) continue;
    for (const f of turn.files) {
      const seen = files.get(f.id);
      if (!seen) files.set(f.id, { file: f, fromId: turn.beforeId, toId: turn.afterId, turns: 1 });
      else {
        const status = seen.file.status === "added" && f.status !== "deleted" ? "added" : f.status;
        files.set(f.id, {
          file: { ...f, status, large: seen.file.large || f.large, toolCallIds: [], certain: false },
          fromId: seen.fromId,
          toId: turn.afterId,
          turns: seen.turns + 1,
        });
      }
    }
  }
  return [...files.values()].sort((a, b) => a.file.path.localeCompare(b.file.path));
}

export function SessionChanges({
  sessionId,
  list,
  name,
  onUndo,
  onClose,
}: {
  sessionId: number;
  list: CheckpointList;
  name: CallNamer;
  onUndo: (rewind: RewindInfo) => void;
  onClose: () => void;
}) {
  const files = useMemo(() => sessionFiles(list.turns), [list.turns]);
  const notListed = list.turns.reduce((n, t) => n + (t.afterId === null ? 0 : t.fileCount - t.files.length), 0);
  return (
    <section className="session-changes" aria-label="Changes of this session">
      <header>
        <strong>Changes of this session</strong>{" "}
        <span className="muted">
          {files.length} file{files.length === 1 ? "" : "s"} in {list.turns.length} turn{list.turns.length === 1 ? "" : "s"}
        </span>{" "}
        <button className="link" onClick={onClose}>
          Close
        </button>
      </header>
      {!list.available && list.notice && <div className="notice">{list.notice}</div>}
      <ul>
        {files.map((f) => (
          <FileRow key={f.file.id} sessionId={sessionId} file={f.file} fromId={f.fromId} toId={f.toId} name={name} maxFileBytes={list.maxFileBytes} />
        ))}
        {notListed > 0 && <li className="muted not-listed">{notListedText(notListed)}</li>}
      </ul>
      {list.rewinds.length > 0 && (
        <>
          <strong>Rewinds</strong>
          <ul className="rewinds">
            {list.rewinds.map((r) => (
              <li key={r.id}>
                Files rewound {r.label} ({r.restored} restored, {r.removed} removed, {r.kept} kept){r.undoneBy !== null ? " · undone" : ""}{" "}
                {r.undoable && r.undoneBy === null && (
                  <button className="link" onClick={() => onUndo(r)}>
                    Undo
                  </button>
                )}
              </li>
            ))}
          </ul>
        </>
      )}
    </section>
  );
}
