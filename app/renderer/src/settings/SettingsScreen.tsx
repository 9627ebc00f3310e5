// Settings: providers (where each key comes from, base URL, set or clear a key, refresh models,
// test, remove; add one), the default model, the theme, the permission mode, automatic
// compaction, the sandbox (SandboxPanel), permission rules (list, edit the pattern or action,
// revoke) and MCP servers (McpServersPanel).
import { useCallback, useEffect, useState } from "react";
import type { PermissionRule, Project, Settings } from "../../../shared/ipc/contract";
import { getApi } from "../api/client";
import { errorText, unwrap } from "../state/api-hooks";
import { useAppData } from "../state/app-data";
import { ProviderSetup } from "../welcome/ProviderSetup";
import { EnvironmentKeysNotice, SandboxPanel } from "./SandboxPanel";
import { McpServersPanel } from "./McpServersPanel";

type Provider = Settings["providers"][number];

export function SettingsScreen({ project }: { project: Project | null }) {
  const { settings, models, setSettings, reloadModels } = useAppData();
  const [error, setError] = useState<string | null>(null);
  const [adding, setAdding] = useState(false);
  if (!settings) return <div className="page muted">Loading settings…</div>;
  const update = (changes: Parameters<ReturnType<typeof getApi>["settings"]["update"]>[0]) => {
    setError(null);
    unwrap(getApi().settings.update(changes)).then(setSettings, (e: unknown) => setError(errorText(e)));
  };
  return (
    <div className="page">
      <div className="page-inner">
        <h1>Settings</h1>
        {error && <p className="error-text" role="alert">{error}</p>}
        <section className="panel" aria-labelledby="providers-title">
          <h2 id="providers-title">Providers</h2>
          <EnvironmentKeysNotice settings={settings} onSettings={setSettings} />
          {settings.providers.length === 0 && <p className="muted">No provider yet.</p>}
          <ul className="list">
            {settings.providers.map((p) => (
              <ProviderRow key={p.id} provider={p} canStoreKeys={settings.canStoreKeys} modelCount={models.filter((m) => m.provider === p.id).length} onSettings={setSettings} onModels={reloadModels} />
            ))}
          </ul>
          {adding ? <ProviderSetup onDone={() => setAdding(false)} /> : <button onClick={() => setAdding(true)}>Add a provider…</button>}
        </section>
        <section className="panel" aria-labelledby="general-title">
          <h2 id="general-title">General</h2>
          <div className="row">
            <label>
              Default model for new sessions
              <select value={settings.defaultModel ?? ""} onChange={(e) => update({ defaultModel: e.target.value || null })}>
                <option value="">First available</option>
                {models.map((m) => (
                  <option key={`${m.provider}/${m.id}`} value={`${m.provider}/${m.id}`}>
                    {m.name} ({m.provider})
                  </option>
                ))}
              </select>
            </label>
            <label>
              Theme
              <select value={settings.theme} onChange={(e) => update({ theme: e.target.value as Settings["theme"] })}>
                <option value="system">System</option>
                <option value="light">Light</option>
                <option value="dark">Dark</option>
              </select>
            </label>
            <label>
              Permission mode
              <select value={settings.permissionMode} onChange={(e) => update({ permissionMode: e.target.value as Settings["permissionMode"] })}>
                <option value="sandboxed-auto" disabled={!settings.sandbox.available}>
                  Sandboxed auto{settings.sandbox.available ? "" : " (no sandbox here)"}
                </option>
                <option value="ask">Ask before acting</option>
                <option value="auto-edit">Auto-approve edits in the project</option>
                <option value="full-auto">Full auto (no sandbox, no questions)</option>
              </select>
            </label>
          </div>
          <div style={{ marginTop: 10 }}>
            <label className="checkbox">
              <input type="checkbox" checked={settings.autoCompact} onChange={(e) => update({ autoCompact: e.target.checked })} />
              Compact automatically
            </label>
            <p className="setting-help">
              When a session nears the model’s context window, the older part is summarized and the recent turns are kept (the full history stays in the session; you can edit or undo a summary).
              Off means nothing is summarized unless you click Compact now: a request that overflows the window is reported as an error instead.
            </p>
          </div>
          <StallLimit key={settings.stallTimeoutSeconds} seconds={settings.stallTimeoutSeconds} onChange={(stallTimeoutSeconds) => update({ stallTimeoutSeconds })} />
          <CheckpointLimit key={settings.checkpointMaxFileMB} mb={settings.checkpointMaxFileMB} onChange={(checkpointMaxFileMB) => update({ checkpointMaxFileMB })} />
        </section>
        <SandboxPanel settings={settings} project={project} onSettings={setSettings} />
        <RulesPanel project={project} />
        <McpServersPanel project={project} />
      </div>
    </div>
  );
}

function ProviderRow({ provider, canStoreKeys, modelCount, onSettings, onModels }: { provider: Provider; canStoreKeys: boolean; modelCount: number; onSettings: (s: Settings) => void; onModels: () => Promise<void> }) {
  const [baseUrl, setBaseUrl] = useState(provider.baseUrl ?? "");
  const [key, setKey] = useState("");
  const [status, setStatus] = useState<{ ok: boolean; message: string } | null>(null);
  const act = async (work: () => Promise<string>) => {
    setStatus(null);
    try {
      setStatus({ ok: true, message: await work() });
    } catch (e) {
      setStatus({ ok: false, message: errorText(e) });
    }
  };
  const api = getApi();
  return (
    <li style={{ padding: "8px 0" }} aria-label={`Provider ${provider.name}`}>
      <div className="row" style={{ alignItems: "center" }}>
        <strong style={{ flex: 1 }}>
          {provider.name} <span className="muted">({provider.kind}, {modelCount} models, key: {provider.keySource})</span>
        </strong>
        <button onClick={() => void act(async () => (await unwrap(api.providers.test({ id: provider.id }))).message)}>Test</button>
        <button
          onClick={() =>
            void act(async () => {
              const found = await unwrap(api.models.refresh({ provider: provider.id }));
              await onModels();
              return `${found.length} models`;
            })
          }
        >
          Refresh models
        </button>
        <button className="danger" onClick={() => void act(async () => (onSettings(await unwrap(api.settings.removeProvider({ id: provider.id }))), "Removed"))}>
          Remove
        </button>
      </div>
      <form
        className="row"
        style={{ marginTop: 6 }}
        onSubmit={(e) => {
          e.preventDefault();
          void act(async () => {
            onSettings(await unwrap(api.settings.setProvider({ id: provider.id, baseUrl: baseUrl.trim() || null, ...(key ? { apiKey: key } : {}) })));
            setKey("");
            await onModels();
            return "Saved";
          });
        }}
      >
        <label>
          Base URL
          <input value={baseUrl} onChange={(e) => setBaseUrl(e.target.value)} />
        </label>
        <label>
          New API key
          <input type="password" value={key} onChange={(e) => setKey(e.target.value)} disabled={!canStoreKeys} placeholder={canStoreKeys ? "" : "Not storable on this host"} />
        </label>
        <button type="submit">Save</button>
        {provider.keySource === "settings" && (
          <button type="button" onClick={() => void act(async () => (onSettings(await unwrap(api.settings.setProvider({ id: provider.id, apiKey: null }))), "Key removed"))}>
            Clear key
          </button>
        )}
      </form>
      {status && <div className={status.ok ? "muted" : "error-text"} role="status">{status.message}</div>}
    </li>
  );
}

function RulesPanel({ project }: { project: Project | null }) {
  const [rules, setRules] = useState<PermissionRule[] | null>(null);
  const [error, setError] = useState<string | null>(null);
  const load = useCallback(() => {
    unwrap(getApi().permissions.rules(project ? { projectId: project.id } : {})).then(setRules, (e: unknown) => setError(errorText(e)));
  }, [project]);
  useEffect(load, [load]);
  const act = (work: Promise<unknown>) => {
    setError(null);
    work.then(load, (e: unknown) => setError(errorText(e)));
  };
  return (
    <section className="panel" aria-labelledby="rules-title">
      <h2 id="rules-title">Permission rules{project ? ` (global and ${project.name})` : ""}</h2>
      {error && <p className="error-text" role="alert">{error}</p>}
      <p className="muted" style={{ fontSize: 12 }}>
        A bash rule names a command and its first words, matched word by word (<code>npm test *</code>: npm test and any arguments; <code>make</code>:
        exactly make). Deny rules match commands, not effects: <code>python3 -c</code>, <code>unlink</code> or <code>find -delete</code> can still delete
        files that <code>rm *</code> protects; the sandbox limits effects.
      </p>
      {rules?.length === 0 && <p className="muted">No rules. “Always allow” in a permission dialog adds one.</p>}
      <ul className="list">
        {rules?.map((rule) => (
          <li key={rule.id} className="row" style={{ alignItems: "center", padding: "4px 0", flexWrap: "wrap" }}>
            <code style={{ minWidth: 60 }}>{rule.tool}</code>
            <input aria-label={`Pattern of rule ${rule.id}`} defaultValue={rule.pattern} onBlur={(e) => e.target.value.trim() && e.target.value !== rule.pattern && act(unwrap(getApi().permissions.updateRule({ id: rule.id, pattern: e.target.value.trim() })))} style={{ flex: 1 }} />
            <select aria-label={`Action of rule ${rule.id}`} value={rule.action} onChange={(e) => act(unwrap(getApi().permissions.updateRule({ id: rule.id, action: e.target.value as "allow" | "deny" })))}>
              <option value="allow">allow</option>
              <option value="deny">deny</option>
            </select>
            <span className="muted">{rule.scope}</span>
            <button className="danger" onClick={() => act(unwrap(getApi().permissions.removeRule({ id: rule.id })))}>
              Revoke
            </button>
            {rule.meaning && (
              <div className="muted" style={{ flexBasis: "100%", fontSize: 12 }} aria-label={`Meaning of rule ${rule.id}`}>
                {rule.meaning}
              </div>
            )}
            {rule.note && (
              <div className="notice" style={{ flexBasis: "100%", fontSize: 12 }} role="note">
                {rule.note}
              </div>
            )}
          </li>
        ))}
      </ul>
    </section>
  );
}

/** The stall limit: an answer with no data for this long is stopped (the session shows the count). */
function CheckpointLimit({ mb, onChange }: { mb: number; onChange: (mb: number) => void }) {
  // Keyed by `mb` by its parent, so a saved value starts a fresh draft.
  const [draft, setDraft] = useState(String(mb));
  const value = Number(draft);
  const valid = Number.isInteger(value) && value >= 1 && value <= 1024;
  return (
    <div style={{ marginTop: 10 }}>
      <label style={{ flexDirection: "row", alignItems: "center", gap: 6 }}>
        <span>Checkpoints store files up to</span>
        <input
          aria-label="Checkpoint file size limit in MB"
          type="number"
          min={1}
          max={1024}
          style={{ width: 80 }}
          value={draft}
          onChange={(e) => setDraft(e.target.value)}
          onBlur={() => valid && value !== mb && onChange(value)}
          onKeyDown={(e) => e.key === "Enter" && valid && value !== mb && onChange(value)}
        />
        <span>MB</span>
      </label>
      <p className="setting-help">
        {valid ? "Larger files are listed as changed but not stored: they cannot be restored, and a rewind leaves them as they are." : "Enter a whole number of MB from 1 to 1024."}
      </p>
    </div>
  );
}

function StallLimit({ seconds, onChange }: { seconds: number; onChange: (seconds: number) => void }) {
  // Keyed by `seconds` by its parent, so a saved value starts a fresh draft.
  const [draft, setDraft] = useState(String(seconds));
  const value = Number(draft);
  const valid = Number.isInteger(value) && value >= 10 && value <= 3600;
  return (
    <div style={{ marginTop: 10 }}>
      <label style={{ flexDirection: "row", alignItems: "center", gap: 6 }}>
        <span>Stop an answer after</span>
        <input
          aria-label="Stall limit in seconds"
          type="number"
          min={10}
          max={3600}
          style={{ width: 80 }}
          value={draft}
          onChange={(e) => setDraft(e.target.value)}
          onBlur={() => valid && value !== seconds && onChange(value)}
          onKeyDown={(e) => e.key === "Enter" && valid && value !== seconds && onChange(value)}
        />
        <span>seconds without data</span>
      </label>
      <p className="setting-help">{valid ? "While an answer waits, the session shows “No data for N s”. Reasoning models may think silently for a while." : "Enter a whole number of seconds from 10 to 3600."}</p>
    </div>
  );
}
