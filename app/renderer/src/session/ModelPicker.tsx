// Choosing a model: the models that can be reached (the host lists only those: hosted ones whose
// provider has a key, and what each server listed), plus "Other model id…", a field for any id of a
// known provider ("anthropic/claude-next", "local/qwen3-coder"), for models newer than Lathe's list
// or a server that does not list them. Used by the status bar and by Settings (default model).
import { useState } from "react";
import type { Model } from "../../../shared/agent-types";

const OTHER = "\u0000other";

export function ModelPicker({
  value,
  models,
  onChange,
  label,
  emptyLabel,
}: {
  value: string;
  models: readonly Model[];
  onChange: (ref: string) => void;
  label: string;
  emptyLabel?: string;
}) {
  const [typing, setTyping] = useState(false);
  const [typed, setTyped] = useState("");
  const known = value === "" || models.some((m) => `${m.provider}/${m.id}` === value);
  if (typing) {
    const apply = () => {
      const ref = typed.trim();
      if (!/^[^/\s]+\/\S+$/.test(ref)) return;
      setTyping(false);
      onChange(ref);
    };
    return (
      <span className="model-typed">
        <input
          aria-label={`${label}: model id`}
          placeholder="provider/model-id"
          value={typed}
          onChange={(e) => setTyped(e.target.value)}
          onKeyDown={(e) => {
            if (e.key === "Enter") {
              e.preventDefault();
              apply();
            } else if (e.key === "Escape") {
              e.preventDefault();
              e.stopPropagation();
              setTyping(false);
            }
          }}
          autoFocus
          size={28}
        />
        <button type="button" className="small" onClick={apply} disabled={!/^[^/\s]+\/\S+$/.test(typed.trim())}>
          Use
        </button>
        <button type="button" className="small" onClick={() => setTyping(false)}>
          Cancel
        </button>
      </span>
    );
  }
  return (
    <select
      aria-label={label}
      value={value}
      onChange={(e) => {
        if (e.target.value === OTHER) {
          setTyped(value.includes("/") ? `${value.slice(0, value.indexOf("/") + 1)}` : "");
          setTyping(true);
        } else onChange(e.target.value);
      }}
    >
      {emptyLabel !== undefined && <option value="">{emptyLabel}</option>}
      {!known && <option value={value}>{value}</option>}
      {models.length === 0 && value === "" && emptyLabel === undefined && <option value="">No model can be reached</option>}
      {models.map((m) => (
        <option key={`${m.provider}/${m.id}`} value={`${m.provider}/${m.id}`}>
          {m.name} ({m.provider})
        </option>
      ))}
      <option value={OTHER}>Other model id…</option>
    </select>
  );
}
