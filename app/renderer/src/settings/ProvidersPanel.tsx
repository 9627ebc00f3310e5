// Settings → Providers: where each key comes from, how many models can be reached, base URL and a
// new key, test, refresh models, remove (after a confirmation: a stored key cannot come back), and
// adding one (ProviderSetup). A change is tested as typed before it is saved, and saved only when
// the test passes, unless the person chooses "Save anyway" after a failed test. When a server's
// model list was cut (past 5,000 models, ids that cannot be chosen), the host's notice is shown
// under the result (for a provider just added, under "Add a provider…", as the form closes).
import { useState } from "react";
import type { Settings } from "../../../shared/ipc/contract";
import { getApi } from "../api/client";
import { errorText, unwrap } from "../state/api-hooks";
import { useAppData } from "../state/app-data";
import { plural } from "../state/format";
import { ProviderSetup, type SetupOutcome } from "../welcome/ProviderSetup";
import { EnvironmentKeysNotice } from "./SandboxPanel";

type Provider = Settings["providers"][number];

export function ProvidersPanel({ settings }: { settings: Settings }) {
  const { models, setSettings, reloadModels } = useAppData();
  const [adding, setAdding] = useState(false);
  const [added, setAdded] = useState<SetupOutcome | null>(null);
  return (
    <section className="panel" aria-labelledby="providers-title">
      <h2 id="providers-title">Providers</h2>
      <EnvironmentKeysNotice settings={settings} onSettings={setSettings} />
      {settings.providers.length === 0 && <p className="muted">No provider yet.</p>}
      <ul className="list">
        {settings.providers.map((p) => (
          <ProviderRow
            key={p.id}
            provider={p}
            canStoreKeys={settings.canStoreKeys}
            modelCount={models.filter((m) => m.provider === p.id).length}
            onSettings={setSettings}
            onModels={reloadModels}
          />
        ))}
      </ul>
      {adding ? (
        <ProviderSetup onDone={(_, outcome) => (setAdding(false), setAdded(outcome))} />
      ) : (
        <button onClick={() => (setAdding(true), setAdded(null))}>Add a provider…</button>
      )}
      {/* The form closes once the provider is saved: what its test said stays here. */}
      {added && !adding && (
        <div role="status" aria-label="Provider added">
          <div className="muted">Added. {added.message}</div>
          {added.notice && (
            <div className="notice" role="note" aria-label="Model list cut">
              {added.notice}
            </div>
          )}
        </div>
      )}
    </section>
  );
}

/** What an action ended with; `notice`: the host's word that a model list was cut. */
type Outcome = { ok: boolean; message: string; notice?: string };

const KEY_SOURCE = { settings: "key stored", environment: "key from the environment", none: "no key" } as const;

function ProviderRow({
  provider,
  canStoreKeys,
  modelCount,
  onSettings,
  onModels,
}: {
  provider: Provider;
  canStoreKeys: boolean;
  modelCount: number;
  onSettings: (s: Settings) => void;
  onModels: () => Promise<void>;
}) {
  const [baseUrl, setBaseUrl] = useState(provider.baseUrl ?? "");
  const [key, setKey] = useState("");
  const [status, setStatus] = useState<Outcome | null>(null);
  const [failedTest, setFailedTest] = useState(false);
  const [confirmRemove, setConfirmRemove] = useState(false);
  const [busy, setBusy] = useState(false);
  const api = getApi();
  const act = async (work: () => Promise<string | Omit<Outcome, "ok">>) => {
    setStatus(null);
    setBusy(true);
    try {
      const done = await work();
      setStatus(typeof done === "string" ? { ok: true, message: done } : { ok: true, ...done });
    } catch (e) {
      setStatus({ ok: false, message: errorText(e) });
    } finally {
      setBusy(false);
    }
  };
  const changes = { baseUrl: baseUrl.trim() || null, ...(key ? { apiKey: key } : {}) };
  const save = async () => {
    onSettings(await unwrap(api.settings.setProvider({ id: provider.id, ...changes })));
    setKey("");
    setFailedTest(false);
    if (provider.kind === "compatible") await unwrap(api.models.refresh({ provider: provider.id })).catch(() => undefined);
    await onModels();
  };
  const testThenSave = () =>
    act(async () => {
      const tested = await unwrap(api.providers.test({ id: provider.id, candidate: { baseUrl: changes.baseUrl, ...(key ? { apiKey: key } : {}) } }));
      if (!tested.ok) {
        setFailedTest(true);
        throw new Error(`Not saved: ${tested.message}`);
      }
      await save();
      return { message: `Saved. ${tested.message}`, notice: tested.notice };
    });
  return (
    <li className="provider-row" aria-label={`Provider ${provider.name}`}>
      <div className="row" style={{ alignItems: "center" }}>
        <strong style={{ flex: 1 }}>
          {provider.name}{" "}
          <span className="muted">
            ({provider.kind}, {plural(modelCount, "model")}, {KEY_SOURCE[provider.keySource]})
          </span>
        </strong>
        <button type="button" disabled={busy} onClick={() => void act(() => unwrap(api.providers.test({ id: provider.id })))}>
          Test
        </button>
        <button
          type="button"
          disabled={busy}
          onClick={() =>
            void act(async () => {
              const found = await unwrap(api.models.refresh({ provider: provider.id }));
              await onModels();
              return { message: `${plural(found.models.length, "model")} found`, notice: found.notice };
            })
          }
        >
          Refresh models
        </button>
        {confirmRemove ? (
          <span className="confirm" role="group" aria-label={`Remove ${provider.name}?`}>
            <span>
              Remove {provider.name}
              {provider.keySource === "settings" ? " and its stored key" : ""}?
            </span>
            <button
              type="button"
              className="danger"
              onClick={() => void act(async () => (onSettings(await unwrap(api.settings.removeProvider({ id: provider.id }))), await onModels(), "Removed"))}
            >
              Remove
            </button>
            <button type="button" onClick={() => setConfirmRemove(false)}>
              Cancel
            </button>
          </span>
        ) : (
          <button type="button" className="danger" onClick={() => setConfirmRemove(true)}>
            Remove…
          </button>
        )}
      </div>
      <form
        className="row"
        style={{ marginTop: 6 }}
        onSubmit={(e) => {
          e.preventDefault();
          void testThenSave();
        }}
      >
        <label>
          Base URL
          <input value={baseUrl} onChange={(e) => (setBaseUrl(e.target.value), setFailedTest(false))} />
        </label>
        <label>
          New API key
          <input
            type="password"
            value={key}
            onChange={(e) => (setKey(e.target.value), setFailedTest(false))}
            disabled={!canStoreKeys}
            placeholder={canStoreKeys ? "" : "Not storable on this host"}
          />
        </label>
        <button type="submit" disabled={busy}>
          Test and save
        </button>
        {failedTest && (
          <button type="button" disabled={busy} onClick={() => void act(async () => (await save(), "Saved without a passing test."))}>
            Save anyway
          </button>
        )}
        {provider.keySource === "settings" && (
          <button
            type="button"
            disabled={busy}
            onClick={() => void act(async () => (onSettings(await unwrap(api.settings.setProvider({ id: provider.id, apiKey: null }))), await onModels(), "Key removed"))}
          >
            Clear key
          </button>
        )}
      </form>
      {status && (
        <div className={status.ok ? "muted" : "error-text"} role="status">
          {status.message}
        </div>
      )}
      {status?.notice && (
        <div className="notice" role="note" aria-label="Model list cut">
          {status.notice}
        </div>
      )}
    </li>
  );
}
