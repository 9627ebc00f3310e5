// The session's status bar: model picker, permission mode, context used out of the model's
// window with "Compact now", the project instruction files in the system prompt, the session's
// tokens and cost, provider retry notices while they happen, and "no data for N s" while an answer
// waits for the provider (counted up to the stall limit in Settings).
import { useState } from "react";
import type { ProviderRetry } from "../../../shared/agent-types";
import type { Session, SessionState } from "../../../shared/ipc/contract";
import { getApi } from "../api/client";
import { errorText, unwrap } from "../state/api-hooks";
import { useAppData } from "../state/app-data";
import { formatCost, formatTokens } from "../state/format";

const MODES = [
  { value: "sandboxed-auto", label: "Sandboxed auto" },
  { value: "ask", label: "Ask before acting" },
  { value: "auto-edit", label: "Auto-approve edits" },
  { value: "full-auto", label: "Full auto (no sandbox)" },
] as const;

/** Seconds without data before the count is shown. */
const SHOW_IDLE_AFTER_S = 5;

export function StatusBar({
  state,
  info,
  retry,
  idleSeconds = null,
  onState,
}: {
  state: SessionState | null;
  info: Session | null;
  retry: ProviderRetry | null;
  /** Seconds since the streaming answer last received data (null when none streams). */
  idleSeconds?: number | null;
  onState: (s: SessionState) => void;
}) {
  const { settings, models, setSettings } = useAppData();
  const [error, setError] = useState<string | null>(null);
  const [compacting, setCompacting] = useState(false);
  const [compactNote, setCompactNote] = useState<string | null>(null);
  const current = state?.model ?? info?.model ?? settings?.defaultModel ?? "";
  const used = state?.contextTokens ?? 0;
  const window = state?.contextWindow ?? 0;
  const share = window > 0 ? Math.min(1, used / window) : 0;
  const knownModel = models.some((m) => `${m.provider}/${m.id}` === current || m.id === current);

  return (
    <footer className="statusbar" aria-label="Session status">
      <label style={{ flexDirection: "row", alignItems: "center", gap: 4 }}>
        <span>Model</span>
        <select
          aria-label="Model"
          value={current}
          onChange={(e) => {
            if (!state) return;
            setError(null);
            unwrap(getApi().sessions.setModel({ sessionId: state.sessionId, model: e.target.value })).then(onState, (err: unknown) => setError(errorText(err)));
          }}
        >
          {!knownModel && <option value={current}>{current || "No model"}</option>}
          {models.map((m) => (
            <option key={`${m.provider}/${m.id}`} value={`${m.provider}/${m.id}`}>
              {m.name} ({m.provider})
            </option>
          ))}
        </select>
      </label>
      <label style={{ flexDirection: "row", alignItems: "center", gap: 4 }}>
        <span>Permissions</span>
        <select
          aria-label="Permission mode"
          className={settings?.permissionMode === "full-auto" ? "warning" : undefined}
          title={settings?.permissionMode === "full-auto" ? "Full auto: commands run outside the sandbox, with your full rights, and nothing asks first." : settings?.sandbox.message}
          value={settings?.permissionMode ?? "ask"}
          onChange={(e) => {
            setError(null);
            unwrap(getApi().settings.update({ permissionMode: e.target.value as (typeof MODES)[number]["value"] })).then(setSettings, (err: unknown) => setError(errorText(err)));
          }}
        >
          {MODES.map((m) => (
            <option key={m.value} value={m.value} disabled={m.value === "sandboxed-auto" && settings?.sandbox.available === false}>
              {m.label}
            </option>
          ))}
        </select>
      </label>
      <span title={`${used} of ${window} tokens of context`} aria-label={`Context: ${formatTokens(used)} of ${formatTokens(window)} tokens`}>
        Context {formatTokens(used)} / {window > 0 ? formatTokens(window) : "?"}
        <span className="meter" aria-hidden="true">
          <span style={{ width: `${share * 100}%` }} />
        </span>
      </span>
      <button
        className="small"
        disabled={!state || state.running || compacting}
        title={state?.running ? "Wait for the run to end" : "Summarize the older part of the session so the model gets a shorter context"}
        onClick={() => {
          if (!state) return;
          setError(null);
          setCompactNote(null);
          setCompacting(true);
          unwrap(getApi().sessions.compact({ sessionId: state.sessionId }))
            .then((r) => setCompactNote(r.message), (err: unknown) => setError(errorText(err)))
            .finally(() => setCompacting(false));
        }}
      >
        {compacting ? "Compacting…" : "Compact now"}
      </button>
      {compactNote && (
        <span role="status" className="compact-note" title={compactNote}>
          {compactNote}{" "}
          <button className="link" aria-label="Dismiss" onClick={() => setCompactNote(null)}>
            ×
          </button>
        </span>
      )}
      <InstructionFiles paths={state?.instructionFiles ?? []} />
      <span>
        {formatTokens(info?.tokens ?? 0)} tokens · {formatCost(info?.cost ?? 0)}
      </span>
      <span className="spacer" />
      {retry && (
        <span className="retry" role="status">
          Provider error, retrying in {Math.round(retry.delayMs / 1000)} s (attempt {retry.attempt} of {retry.maxAttempts}): {retry.error}
        </span>
      )}
      {idleSeconds !== null && idleSeconds >= SHOW_IDLE_AFTER_S && (
        <span className="stall" role="status" title="The answer is stopped as stalled at the limit set in Settings">
          No data for {idleSeconds} s{settings ? ` (stops at ${settings.stallTimeoutSeconds} s)` : ""}
        </span>
      )}
      {error && <span className="error-text" role="alert">{error}</span>}
      {state?.running && <span role="status">Agent running…</span>}
    </footer>
  );
}

/** "Instructions: AGENTS.md": the project instruction files in the system prompt; full paths on hover and in a popover. */
function InstructionFiles({ paths }: { paths: readonly string[] }) {
  // The host reports the files once the session's system prompt is built (at its first prompt).
  if (paths.length === 0) return null;
  const names = paths.map((p) => p.split(/[\\/]/).at(-1) ?? p);
  return (
    <details className="popover instructions">
      <summary title={paths.join("\n")} aria-label={`Instruction files: ${paths.join(", ")}`}>
        Instructions: {names.join(", ")}
      </summary>
      <div className="popover-body" role="group" aria-label="Instruction files loaded into the system prompt">
        <div className="muted">Loaded into the system prompt, in this order:</div>
        <ul>
          {paths.map((p) => (
            <li key={p}>
              <code>{p}</code>
            </li>
          ))}
        </ul>
      </div>
    </details>
  );
}
