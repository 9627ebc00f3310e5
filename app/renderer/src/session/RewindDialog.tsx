// The rewind preview and its confirmation. Opened on one of your messages ("Rewind files to
// here", or "Fork from here"), or on a rewind (Undo). It asks the host for a preview (nothing
// changes on disk yet) and lists, by group, what would be restored, what the agent created and
// would be removed, your own new files that stay, files over the size limit that stay as they
// are, and the files changed outside Lathe since the checkpoint: those stay unless you tick
// "restore anyway". Rewind keeps or forks the conversation; Fork restores the files into the
// project, into a new git worktree (when the project is in a repository), or not at all. If files
// changed after the preview, the host answers with a fresh one, shown with a warning.
import { useEffect, useState } from "react";
import type { PreviewFile, RewindPreview } from "../../../shared/ipc/checkpoint-schemas";
import type { Session } from "../../../shared/ipc/contract";
import { getApi } from "../api/client";
import { errorText, unwrap } from "../state/api-hooks";

export type RewindTarget = { kind: "rewind"; position: number } | { kind: "fork"; position: number } | { kind: "undo"; rewindId: number };

interface Props {
  sessionId: number;
  target: RewindTarget;
  onClose: () => void;
  /** A fork was made: open it. */
  onOpenSession: (session: Session) => void;
  /** The files were rewound: a line for the session view. */
  onDone: (message: string) => void;
}

const GROUPS: { title: string; test: (f: PreviewFile) => boolean }[] = [
  { title: "Changed outside Lathe since then: kept unless you choose", test: (f) => f.conflict },
  { title: "Restored to how they were", test: (f) => !f.conflict && f.action === "restore" },
  { title: "Created since then by the agent: removed", test: (f) => !f.conflict && f.action === "remove" },
  { title: "Your new files: kept", test: (f) => f.reason === "yours" },
  { title: "Over the size limit (not stored): left as they are", test: (f) => f.reason === "too-large" },
];

/** What the files the preview does not name (past MAX_LISTED_FILES) will get. */
function NotListed({ preview }: { preview: RewindPreview }) {
  const { totals, files } = preview;
  const count = (action: PreviewFile["action"]) => totals[action] - files.filter((f) => f.action === action).length;
  const [restore, remove, keep] = [count("restore"), count("remove"), count("keep")];
  const conflicts = totals.conflicts - files.filter((f) => f.conflict).length;
  if (restore + remove + keep === 0) return null;
  const n = (k: number) => k.toLocaleString("en-US");
  return (
    <div className="notice not-listed" role="note">
      {n(restore + remove + keep)} more files are not listed: {n(restore)} will be restored, {n(remove)} removed, {n(keep)} kept as they are
      {conflicts > 0 ? ` (among them ${n(conflicts)} changed outside Lathe: they stay as they are)` : ""}.
    </div>
  );
}

export function RewindDialog({ sessionId, target, onClose, onOpenSession, onDone }: Props) {
  const [preview, setPreview] = useState<RewindPreview | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [restore, setRestore] = useState<ReadonlySet<string>>(new Set());
  const [conversation, setConversation] = useState<"keep" | "fork">("keep");
  const [destination, setDestination] = useState<"project" | "worktree" | "none">("project");
  const [busy, setBusy] = useState(false);

  useEffect(() => {
    let live = true;
    const params = target.kind === "undo" ? { sessionId, undoOf: target.rewindId } : { sessionId, position: target.position };
    unwrap(getApi().checkpoints.preview(params)).then(
      (p) => live && setPreview(p),
      (e: unknown) => live && setError(errorText(e)),
    );
    return () => {
      live = false;
    };
  }, [sessionId, target]);

  const forkOnly = async () => {
    if (target.kind !== "fork") return;
    setBusy(true);
    try {
      onOpenSession(await unwrap(getApi().sessions.fork({ sessionId, position: target.position })));
    } catch (e) {
      setError(errorText(e));
      setBusy(false);
    }
  };

  const confirm = async () => {
    if (!preview) return;
    if (target.kind === "fork" && destination === "none") return forkOnly();
    setBusy(true);
    try {
      const forking = target.kind === "fork" || (target.kind === "rewind" && conversation === "fork");
      const result = await unwrap(
        getApi().checkpoints.rewind({
          sessionId,
          previewId: preview.previewId,
          restore: [...restore],
          conversation: forking ? "fork" : "keep",
          destination: target.kind === "fork" && destination === "worktree" ? "worktree" : "project",
        }),
      );
      if (result.changed) {
        setPreview(result.changed);
        setRestore(new Set());
        setBusy(false);
        return;
      }
      const o = result.outcome!;
      const skipped = o.skipped.length > 0 ? `; ${o.skipped.length} left as they were (${o.skipped.map((s) => `${s.path}: ${s.why}`).join("; ")})` : "";
      onDone(`${o.worktree ? `Files written to ${o.folder}` : "Files rewound"}: ${o.written} restored, ${o.removed} removed${skipped}.`);
      if (result.session) onOpenSession(result.session);
      onClose();
    } catch (e) {
      setError(errorText(e));
      setBusy(false);
    }
  };

  const title =
    target.kind === "undo" ? "Undo the rewind" : target.kind === "fork" ? `Fork from message ${target.position + 1}` : `Rewind files to before message ${target.position + 1}`;
  const changes = preview ? preview.totals.restore + preview.totals.remove + restore.size : 0;
  return (
    <div className="rewind-dialog" role="dialog" aria-modal="true" aria-label="Rewind preview" onKeyDown={(e) => e.key === "Escape" && onClose()}>
      <h3>{title}</h3>
      {error && (
        <div className="notice error" role="alert">
          {error}
        </div>
      )}
      {!preview && !error && <div className="muted">Looking at what would change on disk…</div>}
      {target.kind === "fork" && error && (
        <button onClick={() => void forkOnly()} disabled={busy}>
          Fork the conversation only
        </button>
      )}
      {preview && (
        <>
          {preview.warnings.map((w) => (
            <div key={w} className="notice">
              {w}
            </div>
          ))}
          {preview.files.length === 0 && <div className="muted">No file differs from that point: nothing on disk would change.</div>}
          <NotListed preview={preview} />
          {GROUPS.map((group) => {
            const files = preview.files.filter(group.test);
            if (files.length === 0) return null;
            return (
              <div key={group.title} className="rewind-group">
                <strong>{group.title}</strong>
                <ul>
                  {files.map((f) => (
                    <li key={f.id} data-file={f.path}>
                      {f.conflict ? (
                        <label className="checkbox">
                          <input
                            type="checkbox"
                            checked={restore.has(f.id)}
                            onChange={(e) => {
                              const next = new Set(restore);
                              if (e.target.checked) next.add(f.id);
                              else next.delete(f.id);
                              setRestore(next);
                            }}
                          />{" "}
                          {f.path} <span className="muted">({f.change} since; restore anyway)</span>
                        </label>
                      ) : (
                        <>
                          {f.path} <span className="muted">({f.change} since)</span>
                        </>
                      )}
                    </li>
                  ))}
                </ul>
              </div>
            );
          })}
          {target.kind === "rewind" && (
            <fieldset>
              <legend>The conversation</legend>
              <label className="checkbox">
                <input type="radio" name="conversation" checked={conversation === "keep"} onChange={() => setConversation("keep")} /> Keep it (the agent is told the files were
                restored)
              </label>
              <label className="checkbox">
                <input type="radio" name="conversation" checked={conversation === "fork"} onChange={() => setConversation("fork")} /> Fork a new session from before this message
              </label>
            </fieldset>
          )}
          {target.kind === "fork" && (
            <fieldset>
              <legend>The files</legend>
              <label className="checkbox">
                <input type="radio" name="destination" checked={destination === "project"} onChange={() => setDestination("project")} /> Restore them in the project folder
              </label>
              {preview.gitRepository && (
                <label className="checkbox">
                  <input type="radio" name="destination" checked={destination === "worktree"} onChange={() => setDestination("worktree")} /> Restore them into a new git worktree
                  (the project stays as it is)
                </label>
              )}
              <label className="checkbox">
                <input type="radio" name="destination" checked={destination === "none"} onChange={() => setDestination("none")} /> Leave the files as they are
              </label>
            </fieldset>
          )}
        </>
      )}
      <div className="rewind-buttons">
        <button onClick={() => void confirm()} disabled={!preview || busy} className="primary">
          {target.kind === "fork" ? "Fork" : target.kind === "undo" ? `Undo (${changes} file${changes === 1 ? "" : "s"})` : `Rewind ${changes} file${changes === 1 ? "" : "s"}`}
        </button>{" "}
        <button onClick={onClose} disabled={busy}>
          Cancel
        </button>
      </div>
    </div>
  );
}
