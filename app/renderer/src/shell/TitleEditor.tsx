// Renaming a session in place (the session header, History), saved only when told to, like a rule's
// pattern in Settings: Enter or Save saves, Esc or Cancel puts the title back. Leaving the field
// saves nothing: with nothing changed the editor just closes; with a changed title it stays open,
// says "Not saved yet." and offers Save and Cancel (as GitHub's inline title edit does), so a click
// elsewhere neither renames the session by accident nor throws away what was typed.
// Esc is taken here (preventDefault): it cancels the rename and does not stop the run.
import { useState } from "react";

export interface TitleEditorProps {
  /** The title when editing began. */
  initial: string;
  /** The field's accessible name. */
  label: string;
  /** Saves a changed, non-empty title (trimmed); the editor closes once it is called. */
  onSave: (title: string) => void;
  onClose: () => void;
  className?: string;
}

export function TitleEditor({ initial, label, onSave, onClose, className }: TitleEditorProps) {
  const [draft, setDraft] = useState(initial);
  const [left, setLeft] = useState(false);
  const next = draft.trim();
  const changed = next !== "" && next !== initial.trim();
  const save = () => {
    if (changed) onSave(next);
    onClose();
  };
  return (
    <span
      className={`title-editor ${className ?? ""}`}
      onBlur={(e) => {
        // The focus left the editor (not for its own buttons): close if nothing would be lost.
        if (e.currentTarget.contains(e.relatedTarget as Node | null)) return;
        if (draft === initial) onClose();
        else setLeft(true);
      }}
    >
      <input
        aria-label={label}
        value={draft}
        autoFocus
        onFocus={(e) => e.currentTarget.select()}
        onChange={(e) => setDraft(e.target.value)}
        onKeyDown={(e) => {
          if (e.key === "Enter") {
            e.preventDefault();
            save();
          } else if (e.key === "Escape") {
            e.preventDefault();
            onClose();
          }
        }}
      />
      {draft !== initial && (
        <>
          <button type="button" className="small primary" onClick={save} disabled={!changed}>
            Save
          </button>
          <button type="button" className="small" onClick={onClose}>
            Cancel
          </button>
          {left && (
            <span className="muted text-sm" role="status">
              Not saved yet.
            </span>
          )}
        </>
      )}
    </span>
  );
}
