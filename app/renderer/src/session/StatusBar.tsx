// The session's status bar: model picker (reachable models, or any id typed), permission mode,
// context used out of the model's window with "Compact now", the project instruction files in the
// system prompt, the session's tokens and cost (growing during a turn, "≈" where part is an
// estimate), what the agent is doing ("Waiting for your approval", "Running 3 tools", "Thinking"),
// provider retry notices while they happen (counting down), and "no data for N s" while an answer
// waits for the provider (counted up to the stall limit in Settings).
import { useState } from "react";
import { ModelPicker } from "./ModelPicker";
import { useNow } from "./ToolCard";
import type { ProviderRetry } from "../../../shared/agent-types";
import type { Session, SessionState } from "../../../shared/ipc/contract";
import { getApi } from "../api/client";
import { errorText, unwrap } from "../state/api-hooks";
import { useAppData } from "../state/app-data";
import type { LiveCount } from "../state/activity";
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
  retryAt = null,
  idleSeconds = null,
  activity = null,
  usage,
  onState,
}: {
  state: SessionState | null;
  info: Session | null;
  retry: ProviderRetry | null;
  /** When the retry notice arrived (for its countdown). */
  retryAt?: number | null;
  /** What the agent is doing, while it runs. */
  activity?: string | null;
  /** The session's tokens and cost now, the turn so far included. */
  usage: LiveCount;
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
  const now = useNow(retry !== null && retryAt !== null, 250);
  const retryIn = retry ? Math.max(0, Math.ceil(((retryAt ?? now) + retry.delayMs - now) / 1000)) : 0;

  return (
    <footer className="statusbar" aria-label="Session status">
      <label style={{ flexDirection: "row", alignItems: "center", gap: 4 }}>
        <span>Model</span>
        <ModelPicker
          label="Model"
          value={current}
          models={models}
          onChange={(model) => {
            if (!state) return;
            setError(null);
            unwrap(getApi().sessions.setModel({ sessionId: state.sessionId, model })).then(onState, (err: unknown) => setError(errorText(err)));
          }}
        />
      </label>
      <label style={{ flexDirection: "row", alignItems: "center", gap: 4 }}>
        <span>Permissions</span>
        <select
          aria-label="Permission mode"
          className={settings?.permissionMode === "full-auto" ? "warning" : undefined}
          title={
            settings?.permissionMode === "full-auto" ? "Full auto: commands run outside the sandbox, with your full rights, and nothing asks first." : settings?.sandbox.message
          }
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
            .then(
              (r) => setCompactNote(r.message),
              (err: unknown) => setError(errorText(err)),
            )
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
      <span
        className="usage"
        title={usage.estimated ? "Includes an estimate for the answer being written (about 4 characters per token); exact once it ends" : "Tokens and cost of this session"}
      >
        {usage.estimated ? "≈ " : ""}
        {formatTokens(usage.tokens)} tokens · {formatCost(usage.cost)}
      </span>
      <span className="spacer" />
      {retry && (
        <span className="retry" role="status">
          Provider error, retrying in {retryIn} s (attempt {retry.attempt} of {retry.maxAttempts}): {retry.error}
        </span>
      )}
      {idleSeconds !== null && idleSeconds >= SHOW_IDLE_AFTER_S && (
        <span className="stall" role="status" title="The answer is stopped as stalled at the limit set in Settings">
          No data for {idleSeconds} s{settings ? ` (stops at ${settings.stallTimeoutSeconds} s)` : ""}
        </span>
      )}
      {error && (
        <span className="error-text" role="alert">
          {error}
        </span>
      )}
      {state?.running && activity && (
        <span role="status" className="activity" data-activity={activity}>
          {activity}
        </span>
      )}
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
