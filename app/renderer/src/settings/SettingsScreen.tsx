// Settings: providers (ProvidersPanel: tested before they are saved), the default model (a
// reachable one, or any id typed), the theme, the permission mode, automatic compaction, the
// sandbox (SandboxPanel), permission rules (RulesPanel: add, edit with an explicit save, revoke
// with undo) and MCP servers (McpServersPanel).
import { useState } from "react";
import type { Project, Settings } from "../../../shared/ipc/contract";
import { getApi } from "../api/client";
import { errorText, unwrap } from "../state/api-hooks";
import { useAppData } from "../state/app-data";
import { ModelPicker } from "../session/ModelPicker";
import { SandboxPanel } from "./SandboxPanel";
import { McpServersPanel } from "./McpServersPanel";
import { ProvidersPanel } from "./ProvidersPanel";
import { RulesPanel } from "./RulesPanel";

export function SettingsScreen({ project }: { project: Project | null }) {
  const { settings, models, setSettings } = useAppData();
  const [error, setError] = useState<string | null>(null);
  if (!settings) return <div className="page muted">Loading settings…</div>;
  const update = (changes: Parameters<ReturnType<typeof getApi>["settings"]["update"]>[0]) => {
    setError(null);
    unwrap(getApi().settings.update(changes)).then(setSettings, (e: unknown) => setError(errorText(e)));
  };
  return (
    <div className="page">
      <div className="page-inner">
        <h1>Settings</h1>
        {error && (
          <p className="error-text" role="alert">
            {error}
          </p>
        )}
        <ProvidersPanel settings={settings} />
        <section className="panel" aria-labelledby="general-title">
          <h2 id="general-title">General</h2>
          <div className="row">
            <label>
              Default model for new sessions
              <ModelPicker
                label="Default model for new sessions"
                value={settings.defaultModel ?? ""}
                models={models}
                emptyLabel="First available"
                onChange={(ref) => update({ defaultModel: ref || null })}
              />
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
              When a session nears the model’s context window, the older part is summarized and the recent turns are kept (the full history stays in the session; you can edit or
              undo a summary). Off means nothing is summarized unless you click Compact now: a request that overflows the window is reported as an error instead.
            </p>
          </div>
          <StallLimit key={settings.stallTimeoutSeconds} seconds={settings.stallTimeoutSeconds} onChange={(stallTimeoutSeconds) => update({ stallTimeoutSeconds })} />
          <CheckpointLimit key={settings.checkpointMaxFileMB} mb={settings.checkpointMaxFileMB} onChange={(checkpointMaxFileMB) => update({ checkpointMaxFileMB })} />
          <div style={{ marginTop: 10 }}>
            <label className="checkbox">
              <input type="checkbox" checked={settings.lowerCommandPriority} onChange={(e) => update({ lowerCommandPriority: e.target.checked })} />
              Run parallel commands at a lower CPU priority
            </label>
            <p className="setting-help">
              Commands the agent runs at the same time share the processor like one program, so several heavy builds or tests at once do not slow the window down; a command alone,
              or an idle machine, is not affected. Applies to commands started after the change (Linux and macOS).
            </p>
          </div>
        </section>
        <SandboxPanel settings={settings} project={project} onSettings={setSettings} />
        <RulesPanel project={project} />
        <McpServersPanel project={project} />
      </div>
    </div>
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
      <p className="setting-help">
        {valid
          ? "While an answer waits, the session shows “No data for N s”. Reasoning models may think silently for a while."
          : "Enter a whole number of seconds from 10 to 3600."}
      </p>
    </div>
  );
}
