// Getting a provider working: pick Anthropic, OpenAI or an OpenAI-compatible local server, give a
// key or a base URL, then "Save and test": the host tests what was typed first, and it is saved
// only when the test passes; after a failed test, "Save anyway" saves it as typed. Used by the
// first-run welcome and by Settings (to add one). Keys go to the host, which stores them encrypted
// or refuses with its reason; they never come back.
import { useState } from "react";
import type { Settings } from "../../../shared/ipc/contract";
import { getApi } from "../api/client";
import { errorText, unwrap } from "../state/api-hooks";
import { useAppData } from "../state/app-data";

type Kind = "anthropic" | "openai" | "compatible";

/** How adding ended: the test's words, and the host's notice when the model list was cut. */
export interface SetupOutcome {
  message: string;
  notice?: string;
}

export function ProviderSetup({ onDone, onStart }: { onDone?: (settings: Settings, outcome: SetupOutcome) => void; onStart?: () => void }) {
  const { settings, setSettings, reloadModels } = useAppData();
  const [kind, setKind] = useState<Kind>("compatible");
  const [id, setId] = useState("local");
  const [name, setName] = useState("Local server");
  const [baseUrl, setBaseUrl] = useState("http://127.0.0.1:11434/v1");
  const [apiKey, setApiKey] = useState("");
  const [status, setStatus] = useState<{ ok: boolean; message: string; notice?: string } | null>(null);
  const [busy, setBusy] = useState(false);
  const [failedTest, setFailedTest] = useState(false);

  const save = async (): Promise<Settings | null> => {
    const providerId = kind === "compatible" ? id.trim() : kind;
    const saved = await unwrap(
      getApi().settings.setProvider({
        id: providerId,
        kind,
        ...(kind === "compatible" ? { name: name.trim() || providerId, baseUrl: baseUrl.trim() } : baseUrl.trim() ? { baseUrl: baseUrl.trim() } : {}),
        ...(apiKey ? { apiKey } : {}),
      }),
    );
    setSettings(saved);
    return saved;
  };

  const run = async (testFirst: boolean) => {
    onStart?.();
    setBusy(true);
    setStatus(null);
    try {
      const providerId = kind === "compatible" ? id.trim() : kind;
      let tested: { ok: boolean; message: string; notice?: string } | null = null;
      if (testFirst) {
        const candidate = { kind, ...(baseUrl.trim() ? { baseUrl: baseUrl.trim() } : {}), ...(apiKey ? { apiKey } : {}) };
        tested = await unwrap(getApi().providers.test({ id: providerId, candidate }));
        if (!tested.ok) {
          setFailedTest(true);
          setStatus({ ok: false, message: `Not saved: ${tested.message}` });
          return;
        }
      }
      const saved = await save();
      setFailedTest(false);
      if (kind === "compatible") await unwrap(getApi().models.refresh({ provider: providerId })).catch(() => undefined);
      await reloadModels();
      const outcome: SetupOutcome = tested ? { message: tested.message, ...(tested.notice ? { notice: tested.notice } : {}) } : { message: "Saved without a passing test." };
      setStatus({ ok: true, ...outcome });
      if (saved) onDone?.(saved, outcome);
    } catch (e) {
      setStatus({ ok: false, message: errorText(e) });
    } finally {
      setBusy(false);
    }
  };

  return (
    <form
      className="panel"
      aria-label="Set up a provider"
      onSubmit={(e) => {
        e.preventDefault();
        void run(true);
      }}
    >
      <h2>Connect a model provider</h2>
      <div className="row">
        <label>
          Provider
          <select
            value={kind}
            onChange={(e) => {
              const k = e.target.value as Kind;
              setKind(k);
              setBaseUrl(k === "compatible" ? "http://127.0.0.1:11434/v1" : "");
            }}
          >
            <option value="compatible">Local or compatible server (OpenAI API)</option>
            <option value="anthropic">Anthropic</option>
            <option value="openai">OpenAI</option>
          </select>
        </label>
        {kind === "compatible" && (
          <>
            <label>
              Id
              <input value={id} onChange={(e) => setId(e.target.value)} required pattern="[a-z0-9][a-z0-9\-]*" title="Lower-case letters, digits and dashes" />
            </label>
            <label>
              Name
              <input value={name} onChange={(e) => setName(e.target.value)} />
            </label>
          </>
        )}
      </div>
      <div className="row" style={{ marginTop: 8 }}>
        <label>
          Base URL{kind === "compatible" ? "" : " (optional)"}
          <input
            value={baseUrl}
            onChange={(e) => (setBaseUrl(e.target.value), setFailedTest(false))}
            required={kind === "compatible"}
            placeholder={kind === "anthropic" ? "https://api.anthropic.com" : kind === "openai" ? "https://api.openai.com/v1" : ""}
          />
        </label>
        <label>
          API key{kind === "compatible" ? " (if the server needs one)" : ""}
          <input type="password" value={apiKey} onChange={(e) => (setApiKey(e.target.value), setFailedTest(false))} autoComplete="off" />
        </label>
      </div>
      {settings && !settings.canStoreKeys && (
        <p className="muted">This host cannot store keys (no OS keyring): set ANTHROPIC_API_KEY or OPENAI_API_KEY in its environment instead, or use a local server.</p>
      )}
      <div className="row" style={{ marginTop: 8, alignItems: "center" }}>
        <button type="submit" className="primary" disabled={busy}>
          Save and test
        </button>
        {failedTest && (
          <button type="button" onClick={() => void run(false)} disabled={busy}>
            Save anyway
          </button>
        )}
        {busy && <span className="muted">Working…</span>}
        {status && (
          <span className={status.ok ? "" : "error-text"} role="status">
            {status.ok ? "✓ " : "✗ "}
            {status.message}
          </span>
        )}
      </div>
      {status?.notice && (
        <p className="notice" role="note" aria-label="Model list cut">
          {status.notice}
        </p>
      )}
    </form>
  );
}
