// The session's status bar: model picker, permission mode, context used out of the model's
// window, the session's tokens and cost, and provider retry notices while they happen.
import { useState } from "react";
import type { ProviderRetry } from "../../../shared/agent-types";
import type { Session, SessionState } from "../../../shared/ipc/contract";
import { getApi } from "../api/client";
import { errorText, unwrap } from "../state/api-hooks";
import { useAppData } from "../state/app-data";
import { formatCost, formatTokens } from "../state/format";

const MODES = [
  { value: "ask", label: "Ask before acting" },
  { value: "auto-edit", label: "Auto-approve edits" },
  { value: "full-auto", label: "Full auto" },
] as const;

export function StatusBar({ state, info, retry, onState }: { state: SessionState | null; info: Session | null; retry: ProviderRetry | null; onState: (s: SessionState) => void }) {
  const { settings, models, setSettings } = useAppData();
  const [error, setError] = useState<string | null>(null);
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
          value={settings?.permissionMode ?? "ask"}
          onChange={(e) => {
            setError(null);
            unwrap(getApi().settings.update({ permissionMode: e.target.value as (typeof MODES)[number]["value"] })).then(setSettings, (err: unknown) => setError(errorText(err)));
          }}
        >
          {MODES.map((m) => (
            <option key={m.value} value={m.value}>
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
      <span>
        {formatTokens(info?.tokens ?? 0)} tokens · {formatCost(info?.cost ?? 0)}
      </span>
      <span className="spacer" />
      {retry && (
        <span className="retry" role="status">
          Provider error, retrying in {Math.round(retry.delayMs / 1000)} s (attempt {retry.attempt} of {retry.maxAttempts}): {retry.error}
        </span>
      )}
      {error && <span className="error-text" role="alert">{error}</span>}
      {state?.running && <span role="status">Agent running…</span>}
    </footer>
  );
}
