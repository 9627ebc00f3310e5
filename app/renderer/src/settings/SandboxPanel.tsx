// Settings for the sandbox commands run in: its status (or why there is none and how to get one),
// network for the open project, the commands that need the real machine, and the secret paths it
// hides. Also the notice about provider keys found in Lathe's environment, with "Store in keyring".
import { useState } from "react";
import type { Project, Settings } from "../../../shared/ipc/contract";
import { getApi } from "../api/client";
import { errorText, unwrap } from "../state/api-hooks";

type SandboxUpdate = NonNullable<Parameters<ReturnType<typeof getApi>["settings"]["update"]>[0]["sandbox"]>;

const lines = (text: string) =>
  text
    .split("\n")
    .map((l) => l.trim())
    .filter(Boolean);

export function SandboxPanel({ settings, project, onSettings }: { settings: Settings; project: Project | null; onSettings: (s: Settings) => void }) {
  const { sandbox } = settings;
  const [error, setError] = useState<string | null>(null);
  // The checkbox shows the user's choice at once; the saved settings replace it when they arrive.
  const [networkPending, setNetworkPending] = useState<boolean | null>(null);
  const save = (changes: SandboxUpdate) => {
    setError(null);
    return unwrap(getApi().settings.update({ sandbox: changes })).then(onSettings, (e: unknown) => setError(errorText(e)));
  };
  const networkOn = networkPending ?? (project !== null && sandbox.networkProjects.includes(project.id));
  return (
    <section className="panel" aria-labelledby="sandbox-title">
      <h2 id="sandbox-title">Sandbox</h2>
      <p className={sandbox.available ? "setting-help" : "notice error"} role="status" aria-label="Sandbox status">
        {sandbox.message}
      </p>
      {settings.permissionMode === "full-auto" && (
        <p className="notice error" role="alert">
          Full auto: commands run outside the sandbox, with your full rights, and nothing asks first.
        </p>
      )}
      {error && (
        <p className="error-text" role="alert">
          {error}
        </p>
      )}
      {project && (
        <label className="checkbox">
          <input
            type="checkbox"
            checked={networkOn}
            disabled={!sandbox.available}
            onChange={(e) => {
              setNetworkPending(e.target.checked);
              void save({ projectNetwork: { projectId: project.id, allowed: e.target.checked } }).finally(() => setNetworkPending(null));
            }}
          />
          Allow network for commands in {project.name}
        </label>
      )}
      <div className="row" style={{ marginTop: 10, alignItems: "flex-start" }}>
        <label style={{ flex: 1 }}>
          Commands that need the real machine (one pattern per line; they ask, and run outside the sandbox)
          <textarea
            aria-label="Commands that need the real machine"
            rows={4}
            defaultValue={sandbox.realMachineCommands.join("\n")}
            key={sandbox.realMachineCommands.join("\n")}
            onBlur={(e) => lines(e.target.value).join("\n") !== sandbox.realMachineCommands.join("\n") && save({ realMachineCommands: lines(e.target.value) })}
          />
        </label>
        <label style={{ flex: 1 }}>
          More secret paths to hide (absolute or ~/…, one per line)
          <textarea
            aria-label="More secret paths to hide"
            rows={4}
            defaultValue={sandbox.hiddenPaths.join("\n")}
            key={sandbox.hiddenPaths.join("\n")}
            onBlur={(e) => lines(e.target.value).join("\n") !== sandbox.hiddenPaths.join("\n") && save({ hiddenPaths: lines(e.target.value) })}
          />
        </label>
      </div>
      <details style={{ marginTop: 6 }}>
        <summary className="muted">Always hidden ({sandbox.defaultHiddenPaths.length} paths)</summary>
        <ul className="muted" style={{ fontSize: 12 }}>
          {sandbox.defaultHiddenPaths.map((p) => (
            <li key={p}>
              <code>{p}</code>
            </li>
          ))}
        </ul>
      </details>
    </section>
  );
}

/** Provider keys Lathe was started with: readable by commands run outside the sandbox. */
export function EnvironmentKeysNotice({ settings, onSettings }: { settings: Settings; onSettings: (s: Settings) => void }) {
  const [status, setStatus] = useState<{ ok: boolean; message: string } | null>(null);
  const inEnv = settings.environmentKeys;
  if (inEnv.length === 0) return null;
  const waiting = inEnv.filter((k) => !k.storedInKeyring);
  const names = (list: typeof inEnv) => list.map((k) => k.variable).join(" and ");
  const store = () => {
    setStatus(null);
    unwrap(getApi().settings.storeEnvironmentKeys({})).then(
      (s) => {
        onSettings(s);
        setStatus({ ok: true, message: "Stored in the keyring." });
      },
      (e: unknown) => setStatus({ ok: false, message: errorText(e) }),
    );
  };
  return (
    <div className={waiting.length > 0 ? "notice" : "setting-help"} role="note" aria-label="Keys in the environment" style={{ marginBottom: 8 }}>
      {waiting.length > 0 ? (
        <>
          Lathe was started with {names(waiting)} in its environment. Commands that run outside the sandbox (in full auto, or when you choose to) can read it, for example from{" "}
          <code>/proc/&lt;pid&gt;/environ</code> of the program that started Lathe. Store it in the keyring, then start Lathe without it.{" "}
          <button onClick={store} disabled={!settings.canStoreKeys} title={settings.canStoreKeys ? undefined : "This host has no keyring to store keys in"}>
            Store in keyring
          </button>
          {!settings.canStoreKeys && <span> (no keyring on this host: keep the app in sandboxed modes, or start it without the key)</span>}
        </>
      ) : (
        <>{names(inEnv)} is stored in the keyring now: start Lathe without it in the environment, so that commands run outside the sandbox cannot read it.</>
      )}
      {status && (
        <div className={status.ok ? "muted" : "error-text"} role="status">
          {status.message}
        </div>
      )}
    </div>
  );
}
