// Settings → Permission rules: every rule that applies here (global, and the open project's), each
// saying what it means. Add a rule (tool, pattern, allow or deny, for the project or everywhere);
// edit a pattern and save it explicitly (Save, or Enter; Cancel or Esc puts it back: nothing is saved
// when the field loses the focus); change allow/deny; revoke, with Undo for a while after (the rule
// is saved again as it was).
import { useCallback, useEffect, useState } from "react";
import type { PermissionRule, Project } from "../../../shared/ipc/contract";
import { getApi } from "../api/client";
import { errorText, unwrap } from "../state/api-hooks";
import "../session/session-content.css";

const TOOLS = ["bash", "edit", "write", "read", "ls", "find", "grep", "mcp", "*"] as const;
/** How long Undo stays offered after a revoke. */
const UNDO_MS = 15_000;

export function RulesPanel({ project }: { project: Project | null }) {
  const [rules, setRules] = useState<PermissionRule[] | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [revoked, setRevoked] = useState<PermissionRule | null>(null);
  const load = useCallback(() => {
    unwrap(getApi().permissions.rules(project ? { projectId: project.id } : {})).then(setRules, (e: unknown) => setError(errorText(e)));
  }, [project]);
  useEffect(load, [load]);
  useEffect(() => {
    if (!revoked) return;
    const timer = setTimeout(() => setRevoked(null), UNDO_MS);
    return () => clearTimeout(timer);
  }, [revoked]);
  const act = (work: Promise<unknown>) => {
    setError(null);
    return work.then(load, (e: unknown) => setError(errorText(e)));
  };
  const revoke = (rule: PermissionRule) => act(unwrap(getApi().permissions.removeRule({ id: rule.id })).then(() => setRevoked(rule)));
  const undo = (rule: PermissionRule) => {
    setRevoked(null);
    void act(
      unwrap(
        getApi().permissions.addRule({
          tool: rule.tool,
          pattern: rule.pattern,
          action: rule.action,
          scope: rule.scope,
          ...(rule.scopeId !== null ? { scopeId: rule.scopeId } : {}),
        }),
      ),
    );
  };
  return (
    <section className="panel" aria-labelledby="rules-title">
      <h2 id="rules-title">Permission rules{project ? ` (global and ${project.name})` : ""}</h2>
      {error && (
        <p className="error-text" role="alert">
          {error}
        </p>
      )}
      <p className="setting-help">
        A bash rule names a command and its first words, matched word by word (<code>npm test *</code>: npm test and any arguments; <code>make</code>: exactly make). Deny rules
        match commands, not effects: <code>python3 -c</code>, <code>unlink</code> or <code>find -delete</code> can still delete files that <code>rm *</code> protects; the sandbox
        limits effects.
      </p>
      {rules?.length === 0 && <p className="muted">No rules yet. Add one below, or choose “Always allow” in a permission request.</p>}
      <ul className="list rules-list">
        {rules?.map((rule) => (
          <RuleRow key={rule.id} rule={rule} onAct={act} onRevoke={() => void revoke(rule)} />
        ))}
      </ul>
      {revoked && (
        <div className="undo-note" role="status">
          Revoked{" "}
          <code>
            {revoked.tool}: {revoked.pattern}
          </code>{" "}
          ({revoked.action}, {revoked.scope}).{" "}
          <button type="button" className="small" onClick={() => undo(revoked)}>
            Undo
          </button>
        </div>
      )}
      <AddRule project={project} onAdd={(rule) => act(unwrap(getApi().permissions.addRule(rule)))} />
    </section>
  );
}

function RuleRow({ rule, onAct, onRevoke }: { rule: PermissionRule; onAct: (work: Promise<unknown>) => Promise<unknown>; onRevoke: () => void }) {
  const [draft, setDraft] = useState(rule.pattern);
  const changed = draft.trim() !== rule.pattern && draft.trim() !== "";
  const save = () => {
    if (changed) void onAct(unwrap(getApi().permissions.updateRule({ id: rule.id, pattern: draft.trim() })));
  };
  return (
    <li className="rule-row">
      <code className="rule-tool">{rule.tool}</code>
      <input
        aria-label={`Pattern of rule ${rule.id}`}
        value={draft}
        onChange={(e) => setDraft(e.target.value)}
        onKeyDown={(e) => {
          if (e.key === "Enter") save();
          if (e.key === "Escape") setDraft(rule.pattern);
        }}
      />
      {draft !== rule.pattern && (
        <>
          <button type="button" className="small primary" onClick={save} disabled={!changed}>
            Save
          </button>
          <button type="button" className="small" onClick={() => setDraft(rule.pattern)}>
            Cancel
          </button>
        </>
      )}
      <select
        aria-label={`Action of rule ${rule.id}`}
        value={rule.action}
        onChange={(e) => void onAct(unwrap(getApi().permissions.updateRule({ id: rule.id, action: e.target.value as "allow" | "deny" })))}
      >
        <option value="allow">allow</option>
        <option value="deny">deny</option>
      </select>
      <span className="muted">{rule.scope}</span>
      <button type="button" className="danger small" onClick={onRevoke}>
        Revoke
      </button>
      {draft !== rule.pattern && <div className="rule-note muted">Not saved yet.</div>}
      {rule.meaning && (
        <div className="rule-note muted" aria-label={`Meaning of rule ${rule.id}`}>
          {rule.meaning}
        </div>
      )}
      {rule.note && (
        <div className="rule-note notice" role="note">
          {rule.note}
        </div>
      )}
    </li>
  );
}

type NewRule = { tool: string; pattern: string; action: "allow" | "deny"; scope: "project" | "global"; scopeId?: number };

function AddRule({ project, onAdd }: { project: Project | null; onAdd: (rule: NewRule) => Promise<unknown> }) {
  const [tool, setTool] = useState<string>("bash");
  const [pattern, setPattern] = useState("");
  const [action, setAction] = useState<"allow" | "deny">("allow");
  const [scope, setScope] = useState<"project" | "global">(project ? "project" : "global");
  const where = project && scope === "project" ? "project" : "global";
  return (
    <form
      className="row add-rule"
      aria-label="Add a rule"
      onSubmit={(e) => {
        e.preventDefault();
        if (!pattern.trim()) return;
        void onAdd({ tool, pattern: pattern.trim(), action, scope: where, ...(where === "project" && project ? { scopeId: project.id } : {}) }).then(() => setPattern(""));
      }}
    >
      <label>
        Tool
        <select value={tool} onChange={(e) => setTool(e.target.value)}>
          {TOOLS.map((t) => (
            <option key={t} value={t}>
              {t === "*" ? "* (every tool)" : t}
            </option>
          ))}
        </select>
      </label>
      <label style={{ flex: 3 }}>
        Pattern
        <input value={pattern} onChange={(e) => setPattern(e.target.value)} placeholder={tool === "bash" ? "npm test *" : tool === "mcp" ? "server/tool or server/*" : "src/**"} />
      </label>
      <label>
        Action
        <select value={action} onChange={(e) => setAction(e.target.value as "allow" | "deny")}>
          <option value="allow">allow</option>
          <option value="deny">deny</option>
        </select>
      </label>
      <label>
        Applies to
        <select value={where} onChange={(e) => setScope(e.target.value as "project" | "global")}>
          {project && <option value="project">project {project.name}</option>}
          <option value="global">every project</option>
        </select>
      </label>
      <button type="submit" disabled={!pattern.trim()}>
        Add rule
      </button>
    </form>
  );
}
