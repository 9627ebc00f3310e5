// Settings › MCP servers: each server with its status (connecting, connected with N tools, failed
// with the server's stderr), enable or disable, load all tools up front, restart, remove, and its
// tools; adding servers by pasting Claude's `mcpServers` JSON or importing a configuration file
// found on this machine. Lists again whenever the main process reports a change.
import { useCallback, useEffect, useRef, useState } from "react";
import type { Project } from "../../../shared/ipc/contract";
import type { McpList, McpServerView } from "../../../shared/ipc/mcp-schemas";
import { getApi } from "../api/client";
import { errorText, unwrap, useSubscription } from "../state/api-hooks";

type Found = Awaited<ReturnType<typeof findConfigs>>[number];
const findConfigs = (projectId: number | undefined) => unwrap(getApi().mcp.findConfigs(projectId === undefined ? {} : { projectId }));

const EXAMPLE = `{
  "mcpServers": {
    "github": { "command": "npx", "args": ["-y", "@modelcontextprotocol/server-github"], "env": { "GITHUB_PERSONAL_ACCESS_TOKEN": "\${GITHUB_TOKEN}" } },
    "docs": { "type": "http", "url": "https://example.com/mcp", "headers": { "Authorization": "Bearer \${DOCS_TOKEN}" } }
  }
}`;

export function McpServersPanel({ project }: { project: Project | null }) {
  const [list, setList] = useState<McpList | null>(null);
  const [error, setError] = useState<string | null>(null);
  const projectId = project?.id;
  const timer = useRef<ReturnType<typeof setTimeout> | undefined>(undefined);
  const load = useCallback(() => {
    unwrap(getApi().mcp.list(projectId === undefined ? {} : { projectId })).then(setList, (e: unknown) => setError(errorText(e)));
  }, [projectId]);
  useEffect(load, [load]);
  useEffect(() => () => clearTimeout(timer.current), []);
  // Status changes come in bursts (connecting, tools, connected): list once per burst.
  useSubscription(getApi().events.onMcpChanged, () => {
    clearTimeout(timer.current);
    timer.current = setTimeout(load, 80);
  });

  return (
    <section className="panel" aria-labelledby="mcp-title">
      <h2 id="mcp-title">MCP servers</h2>
      <p className="setting-help">
        Tools from Model Context Protocol servers. The model sees one tool, tool_search, and loads the tools it needs from there; a server set to load all its tools gives them to
        new sessions from the start. Servers run while Lathe runs; a project’s servers start with its first session.
      </p>
      {error && (
        <p className="error-text" role="alert">
          {error}
        </p>
      )}
      {list?.servers.length === 0 && <p className="muted">No MCP servers yet.</p>}
      <ul className="list">
        {list?.servers.map((s) => (
          <ServerRow key={s.id} server={s} projectId={projectId} onList={setList} />
        ))}
      </ul>
      <AddServers project={project} canStoreSecrets={list?.canStoreSecrets ?? true} onList={setList} />
    </section>
  );
}

function statusText(s: McpServerView): string {
  switch (s.status.state) {
    case "connecting":
      return "Connecting…";
    case "connected":
      return `Connected · ${s.status.toolCount} tool${s.status.toolCount === 1 ? "" : "s"}`;
    case "failed":
      return `Failed: ${s.status.error ?? "unknown error"}`;
    case "disabled":
      return "Disabled";
    case "idle":
      return s.scope === "project" ? "Not started (starts with this project’s first session)" : "Not started";
  }
}

function ServerRow({ server: s, projectId, onList }: { server: McpServerView; projectId: number | undefined; onList: (l: McpList) => void }) {
  const [showTools, setShowTools] = useState(false);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const api = getApi();
  const withProject = projectId === undefined ? {} : { projectId };
  const act = (work: Promise<McpList>) => {
    setBusy(true);
    setError(null);
    work.then(onList, (e: unknown) => setError(errorText(e))).finally(() => setBusy(false));
  };
  const where = s.transport === "http" ? s.url : [s.command, ...(s.args ?? [])].join(" ");
  const values = [...s.env.map((v) => ({ ...v, kind: "env" })), ...s.headers.map((v) => ({ ...v, kind: "header" }))];
  return (
    <li style={{ padding: "8px 0" }} aria-label={`MCP server ${s.name}`} data-state={s.status.state}>
      <div className="row" style={{ alignItems: "center" }}>
        <strong style={{ flex: 1, minWidth: 0 }}>
          {s.name}{" "}
          <span className="muted">
            ({s.scope === "user" ? "everywhere" : "this project"}, {s.transport})
          </span>
        </strong>
        <label className="checkbox">
          <input type="checkbox" checked={!s.disabled} disabled={busy} onChange={(e) => act(unwrap(api.mcp.update({ id: s.id, disabled: !e.target.checked, ...withProject })))} />
          Enabled
        </label>
        <label className="checkbox">
          <input
            type="checkbox"
            checked={s.loadAllTools}
            disabled={busy}
            onChange={(e) => act(unwrap(api.mcp.update({ id: s.id, loadAllTools: e.target.checked, ...withProject })))}
          />
          Load all tools up front
        </label>
        <button disabled={busy || s.disabled} onClick={() => act(unwrap(api.mcp.restart({ id: s.id, ...withProject })))}>
          Restart
        </button>
        <button className="danger" disabled={busy} onClick={() => act(unwrap(api.mcp.remove({ id: s.id, ...withProject })))}>
          Remove
        </button>
      </div>
      <div className="muted" style={{ fontSize: 12, overflowWrap: "anywhere" }}>
        <code>{where}</code>
        {values.length > 0 && <> · {values.map((v) => (v.encrypted ? `${v.name} (encrypted)` : `${v.name}=${v.value ?? ""}`)).join(", ")}</>}
      </div>
      <div role="status" aria-label={`Status of ${s.name}`} className={s.status.state === "failed" ? "error-text" : "muted"} style={{ whiteSpace: "pre-wrap", fontSize: 13 }}>
        {statusText(s)}
      </div>
      {s.status.stderrTail && (
        <details open={s.status.state === "failed"}>
          <summary className="muted" style={{ fontSize: 12 }}>
            Server output (stderr)
          </summary>
          <pre className="excerpt" aria-label={`Output of ${s.name}`}>
            <div>{s.status.stderrTail}</div>
          </pre>
        </details>
      )}
      {s.tools.length > 0 && (
        <button className="link" aria-expanded={showTools} onClick={() => setShowTools(!showTools)}>
          {showTools ? "Hide tools" : `Show tools (${s.tools.length})`}
        </button>
      )}
      {showTools && (
        <ul className="list" aria-label={`Tools of ${s.name}`} style={{ fontSize: 12 }}>
          {s.tools.map((t) => (
            <li key={t.name} style={{ padding: "3px 0" }}>
              <code>{t.name}</code> {t.summary}
              {t.annotations.readOnlyHint && <span className="muted"> · read-only</span>}
              {t.annotations.destructiveHint && !t.annotations.readOnlyHint && <span className="error-text"> · destructive</span>}
              {t.error && <div className="error-text">Unusable: {t.error}</div>}
            </li>
          ))}
        </ul>
      )}
      {error && (
        <div className="error-text" role="alert">
          {error}
        </div>
      )}
    </li>
  );
}

function AddServers({ project, canStoreSecrets, onList }: { project: Project | null; canStoreSecrets: boolean; onList: (l: McpList) => void }) {
  const [text, setText] = useState("");
  const [scope, setScope] = useState<"user" | "project">("user");
  const [found, setFound] = useState<Found[] | null>(null);
  const [busy, setBusy] = useState(false);
  const [message, setMessage] = useState<{ ok: boolean; text: string } | null>(null);
  const projectId = project?.id;
  // With a project open, the answer lists its servers too.
  const target = { scope: scope === "project" && projectId !== undefined ? ("project" as const) : ("user" as const), ...(projectId !== undefined ? { projectId } : {}) };
  const run = (source: ImportSource) => {
    setBusy(true);
    setMessage(null);
    unwrap(getApi().mcp.import({ ...target, ...source }))
      .then(
        (r) => {
          onList(r.list);
          const disabled = r.imported.filter((name) => r.list.servers.some((v) => v.name === name && v.disabled));
          const added =
            r.imported.length > 0
              ? `Added ${r.imported.join(", ")}.${disabled.length > 0 ? ` Not started: enable ${disabled.join(", ")} to start ${disabled.length === 1 ? "it" : "them"}.` : ""}`
              : "Nothing added.";
          const skipped = r.skipped.map((s) => ` Skipped ${s.name}: ${s.reason}`).join("");
          setMessage({ ok: r.skipped.length === 0, text: added + skipped });
          if ("text" in source && r.imported.length > 0) setText("");
        },
        (e: unknown) => setMessage({ ok: false, text: errorText(e) }),
      )
      .finally(() => setBusy(false));
  };
  return (
    <div style={{ marginTop: 10 }}>
      <label>
        Add servers: paste an mcpServers configuration (Claude Desktop, Claude Code)
        <textarea
          aria-label="MCP servers JSON"
          rows={5}
          value={text}
          placeholder={EXAMPLE}
          onChange={(e) => setText(e.target.value)}
          style={{ fontFamily: "var(--mono)", fontSize: 12 }}
        />
      </label>
      {!canStoreSecrets && (
        <p className="setting-help">
          There is no OS keyring here: write secret values as ${"{"}VARIABLE{"}"} and set them in Lathe’s environment.
        </p>
      )}
      <div className="row" style={{ alignItems: "center", marginTop: 6 }}>
        <label style={{ flex: "0 0 auto" }}>
          For
          <select aria-label="Scope of new servers" value={scope} onChange={(e) => setScope(e.target.value as "user" | "project")}>
            <option value="user">every project</option>
            {project && <option value="project">{project.name} only</option>}
          </select>
        </label>
        <button className="primary" disabled={busy || !text.trim()} onClick={() => run({ text })}>
          Add servers
        </button>
        <button disabled={busy} onClick={() => findConfigs(projectId).then(setFound, (e: unknown) => setMessage({ ok: false, text: errorText(e) }))}>
          Find existing configurations…
        </button>
      </div>
      {found && found.length === 0 && <p className="muted">No Claude Desktop or Claude Code configuration found.</p>}
      {found && found.length > 0 && (
        <ul className="list" aria-label="Configurations found" style={{ marginTop: 6 }}>
          {found.map((f) => (
            <FoundConfig key={`${f.path}:${f.localProject}`} found={f} project={project} scope={scope} busy={busy} onImport={run} />
          ))}
        </ul>
      )}
      {message && (
        <p className={message.ok ? "muted" : "error-text"} role="status" aria-label="Import result">
          {message.text}
        </p>
      )}
    </div>
  );
}

type ImportSource = { text: string } | { path: string; localProject?: boolean; scope?: "user" | "project"; replace?: string[]; confirmedVariables?: string[] };

/**
 * One configuration file found: what each of its servers runs or connects to, the names of its env
 * and headers, the variables of Lathe's environment it uses. A server of an existing name is
 * replaced only when ticked; a secret-looking variable is passed to a project file's server only
 * when ticked; a project's file is imported for that project unless the user chooses otherwise.
 */
function FoundConfig({
  found: f,
  project,
  scope,
  busy,
  onImport,
}: {
  found: Found;
  project: Project | null;
  scope: "user" | "project";
  busy: boolean;
  onImport: (source: ImportSource) => void;
}) {
  const [replace, setReplace] = useState<string[]>([]);
  const [confirmed, setConfirmed] = useState<string[]>([]);
  const [fileScope, setFileScope] = useState<"user" | "project">(f.fromProject && project ? "project" : scope);
  const toggle = (list: string[], set: (l: string[]) => void, item: string) => set(list.includes(item) ? list.filter((x) => x !== item) : [...list, item]);
  return (
    <li style={{ padding: "4px 0" }} aria-label={`Configuration ${f.label}`}>
      <div className="row" style={{ alignItems: "center" }}>
        <span style={{ flex: 1, minWidth: 0, overflowWrap: "anywhere" }}>
          {f.label} <span className="muted">({f.path})</span>: {f.error ?? (f.servers.join(", ") || "no servers")}
        </span>
        {!f.error && f.details.length > 0 && f.fromProject && (
          <select aria-label={`Scope of servers from ${f.label}`} value={fileScope} onChange={(e) => setFileScope(e.target.value as "user" | "project")}>
            {project && <option value="project">{project.name} only</option>}
            <option value="user">every project</option>
          </select>
        )}
        {!f.error && f.details.length > 0 && (
          <button
            disabled={busy}
            onClick={() =>
              onImport({ path: f.path, ...(f.localProject ? { localProject: true } : {}), ...(f.fromProject ? { scope: fileScope } : {}), replace, confirmedVariables: confirmed })
            }
          >
            Import
          </button>
        )}
      </div>
      {f.fromProject && f.details.length > 0 && <p className="setting-help">From the project’s own file: its servers are added disabled; enable each to start it.</p>}
      <ul aria-label={`Servers in ${f.label}`} style={{ margin: "2px 0 0 16px" }}>
        {f.details.map((d) => (
          <li key={d.name} aria-label={`Server ${d.name}`} style={{ fontSize: 12 }}>
            <code>{d.name}</code>: <code style={{ overflowWrap: "anywhere" }}>{d.transport === "http" ? d.url : [d.command, ...(d.args ?? [])].join(" ")}</code>
            {d.envNames.length > 0 && <span className="muted"> · env {d.envNames.join(", ")}</span>}
            {d.headerNames.length > 0 && <span className="muted"> · headers {d.headerNames.join(", ")}</span>}
            {d.variables.length > 0 && <span className="muted"> · uses {d.variables.map((v) => `\${${v}}`).join(", ")}</span>}
            {d.existing && (
              <label style={{ display: "block" }}>
                <input type="checkbox" checked={replace.includes(d.name)} onChange={() => toggle(replace, setReplace, d.name)} /> Replace my existing server {d.name} ({d.existing})
              </label>
            )}
            {f.fromProject &&
              d.secretVariables.map((v) => (
                <label key={v} style={{ display: "block" }} className="error-text">
                  <input type="checkbox" checked={confirmed.includes(v)} onChange={() => toggle(confirmed, setConfirmed, v)} /> Pass ${"{"}
                  {v}
                  {"}"} (looks like a secret) from Lathe’s environment to {d.name}
                </label>
              ))}
          </li>
        ))}
      </ul>
    </li>
  );
}
