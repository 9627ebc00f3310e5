// A compaction entry in the transcript, at its place: a divider saying what was summarized and how
// much context that saved, the summary (Markdown, collapsed by default), and for the summary in
// force Edit (a new version replaces it) and Undo (the model sees the full history again). Entries
// no longer in force say why. Also the small notes for undo entries and unexpected stops.
import { memo, useState } from "react";
import type { CustomMessage } from "../../../shared/agent-types";
import { errorText } from "../state/api-hooks";
import { compactionDetails, type CompactionStatus } from "../state/compaction";
import { formatTokens } from "../state/format";
import { Markdown } from "./Markdown";

export interface CompactionActions {
  onEditCompaction?: (index: number, summary: string) => Promise<void>;
  onUndoCompaction?: (index: number) => Promise<void>;
}

const TRIGGER_LABEL = { threshold: "automatic", overflow: "after a context overflow", manual: "on request", edit: "edited" } as const;
const STATUS_LABEL: Record<CompactionStatus, string> = {
  active: "in force",
  replaced: "replaced by an edited version",
  undone: "undone",
  superseded: "superseded by a later summary",
};

export const CompactionEntry = memo(function CompactionEntry({
  message,
  position,
  status,
  running,
  actions,
}: {
  message: CustomMessage;
  position: number;
  status: CompactionStatus | undefined;
  running: boolean;
  actions: CompactionActions;
}) {
  const details = compactionDetails(message.details);
  const [editing, setEditing] = useState(false);
  const [draft, setDraft] = useState(message.content);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const active = status === "active";
  const act = async (work: () => Promise<void> | undefined) => {
    setBusy(true);
    setError(null);
    try {
      await work();
      setEditing(false);
    } catch (e) {
      setError(errorText(e));
    } finally {
      setBusy(false);
    }
  };
  const saving = details ? `${formatTokens(details.tokensBefore)} → ${formatTokens(details.tokensAfter)} tokens, ${TRIGGER_LABEL[details.trigger] ?? details.trigger}` : "";
  const covered = details ? (details.firstKeptIndex === 1 ? "message 1" : `messages 1–${details.firstKeptIndex}`) : "";
  return (
    <section className={`compaction ${status ?? ""}`} data-position={position} data-compaction-status={status} aria-label={`Context summary at message ${position + 1}`}>
      <div className="compaction-rule">
        <span className="compaction-title">Earlier context summarized{saving ? ` (${saving})` : ""}</span>
        {status && <span className={`status ${active ? "done" : "pending"}`}>{STATUS_LABEL[status]}</span>}
      </div>
      {covered && <div className="card-meta">Stands in for {covered} when talking to the model; they stay here for you.</div>}
      {editing ? (
        <form
          className="compaction-edit"
          onSubmit={(e) => {
            e.preventDefault();
            void act(() => actions.onEditCompaction?.(position, draft));
          }}
        >
          <textarea aria-label="Summary text" value={draft} onChange={(e) => setDraft(e.target.value)} rows={Math.min(20, Math.max(6, draft.split("\n").length + 1))} autoFocus />
          <div className="row">
            <button type="submit" className="primary" disabled={busy || !draft.trim() || draft.trim() === message.content.trim()}>
              Save summary
            </button>
            <button type="button" onClick={() => setEditing(false)} disabled={busy}>
              Cancel
            </button>
          </div>
        </form>
      ) : (
        <details className="compaction-summary">
          <summary>Summary</summary>
          <Markdown text={message.content} />
        </details>
      )}
      {active && !editing && (
        <div className="row compaction-actions">
          <button
            disabled={running || busy}
            title={running ? "Wait for the run to end" : "Edit what the model is told about the earlier part"}
            onClick={() => {
              setDraft(message.content);
              setEditing(true);
            }}
          >
            Edit summary
          </button>
          <button
            disabled={running || busy}
            title={running ? "Wait for the run to end" : "Send the full history to the model again"}
            onClick={() => void act(() => actions.onUndoCompaction?.(position))}
          >
            Undo compaction
          </button>
        </div>
      )}
      {error && (
        <div className="error-text" role="alert">
          {error}
        </div>
      )}
    </section>
  );
});

/** The note an undo leaves in the transcript. */
export function CompactionUndoNote({ message, position }: { message: CustomMessage; position: number }) {
  const undoes = (message.details as { undoes?: unknown } | undefined)?.undoes;
  return (
    <div className="msg custom-msg compaction-undo" data-position={position}>
      ↶ {message.content}
      {typeof undoes === "number" ? ` (the summary at message ${undoes + 1})` : ""}
    </div>
  );
}
