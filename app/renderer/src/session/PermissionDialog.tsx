// The permission dialog, inside the session above the composer: the oldest pending request of the
// session (the loop asks in source order), with "1 of N" when more wait. Keyboard-driven: y allows
// once, s allows for this session, a always allows in this project (the rule's scope and pattern
// are shown and editable, with what each proposed rule means), o runs a command outside the
// sandbox (its own explicit choice), n denies and asks for an optional reason, sent to the model.
// The dialog says why Lathe asks and what to watch for (protected files), where the call would run
// and which rule of the sandbox it would cross, or why there is no sandbox.
import { useEffect, useRef, useState } from "react";
import type { PermissionRequest } from "../../../shared/ipc/contract";
import { getApi } from "../api/client";
import { errorText, unwrap } from "../state/api-hooks";
import { DiffView } from "./FileViews";
import type { SandboxRequestInfo } from "../../../shared/sandbox";
import { McpCallSummary } from "./McpCallSummary";

type Decision = "allow-once" | "allow-session" | "allow-project" | "deny";

export function PermissionDialog({ request, count, projectName }: { request: PermissionRequest; count: number; projectName: string }) {
  const box = useRef<HTMLDivElement>(null);
  const reasonInput = useRef<HTMLInputElement>(null);
  const [denying, setDenying] = useState(false);
  const [reason, setReason] = useState("");
  const [pattern, setPattern] = useState(request.proposedRule.pattern);
  const [editingRule, setEditingRule] = useState(false);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);

  // One dialog instance per request (SessionView keys it by id): take the focus when it appears.
  useEffect(() => {
    box.current?.focus();
  }, []);

  useEffect(() => {
    if (denying) reasonInput.current?.focus();
  }, [denying]);

  const canRunOutside = request.toolName === "bash" && request.sandbox?.available === true && request.sandbox.placement !== "outside";
  const canSave = request.proposedRule.pattern.trim() !== "" || pattern.trim() !== "";
  const respond = (decision: Decision, outsideSandbox = false) => {
    if (busy || (decision === "allow-project" && !canSave)) return;
    setBusy(true);
    setError(null);
    const params =
      decision === "deny"
        ? { requestId: request.id, decision, ...(reason.trim() ? { reason: reason.trim() } : {}) }
        : decision === "allow-project"
          ? { requestId: request.id, decision, rule: { tool: request.proposedRule.tool, pattern: pattern.trim() || request.proposedRule.pattern } }
          : { requestId: request.id, decision, ...(outsideSandbox ? { outsideSandbox } : {}) };
    unwrap(getApi().permissions.respond(params)).catch((e: unknown) => {
      setError(errorText(e));
      setBusy(false);
    });
  };

  const onKeyDown = (e: React.KeyboardEvent) => {
    const target = e.target as HTMLElement;
    if (target.tagName === "INPUT" || target.tagName === "TEXTAREA") {
      if (e.key === "Escape") {
        e.preventDefault();
        setDenying(false);
        setEditingRule(false);
        box.current?.focus();
      }
      return;
    }
    if (e.metaKey || e.ctrlKey || e.altKey) return;
    const key = e.key.toLowerCase();
    if (key === "y") respond("allow-once");
    else if (key === "s") respond("allow-session");
    else if (key === "a") respond("allow-project");
    else if (key === "o" && canRunOutside) respond("allow-once", true);
    else if (key === "n") setDenying(true);
    else return;
    e.preventDefault();
  };

  const { summary } = request;
  return (
    <div className="permission" role="dialog" aria-modal="false" aria-labelledby={`perm-title-${request.id}`} tabIndex={-1} ref={box} onKeyDown={onKeyDown} data-request-id={request.id}>
      <div className="row" style={{ alignItems: "center" }}>
        <h3 id={`perm-title-${request.id}`} style={{ flex: 1 }}>
          Allow {request.toolName}: {summary.title}?
        </h3>
        {count > 1 && <span className="muted">1 of {count} requests</span>}
      </div>
      {summary.outsideProject && <div className="notice error">This touches a path outside the project folder.</div>}
      {request.sandbox && <SandboxLine info={request.sandbox} toolName={request.toolName} />}
      {request.warnings?.map((w) => (
        <div key={w} className="notice" role="note">
          {w}
        </div>
      ))}
      {summary.command !== undefined && <pre aria-label="Command">{summary.command}</pre>}
      {request.reasons && request.reasons.length > 0 && (
        <ul aria-label="Why Lathe asks" className="muted" style={{ margin: 0, paddingLeft: 18, fontSize: 12 }}>
          {request.reasons.map((r) => (
            <li key={r}>{r}</li>
          ))}
        </ul>
      )}
      {summary.path !== undefined && summary.command === undefined && <div className="muted">{summary.path}</div>}
      {summary.diff && <DiffView diff={summary.diff} label="Proposed change" />}
      {summary.mcp && <McpCallSummary call={summary.mcp} args={request.args} />}
      <div className="muted" style={{ fontSize: 12 }} aria-label="Proposed rule">
        {!canSave && <div>No rule can allow this: Lathe will ask each time.</div>}
        {canSave && (
          <div>
            Always allow saves a rule for project {projectName}: {request.proposedRule.tool}{" "}
            {editingRule ? (
              <input aria-label="Rule pattern" value={pattern} onChange={(e) => setPattern(e.target.value)} onKeyDown={(e) => e.key === "Enter" && respond("allow-project")} autoFocus />
            ) : (
              <>
                <code>{pattern}</code>{" "}
                <button className="link" onClick={() => setEditingRule(true)}>
                  edit pattern
                </button>
              </>
            )}
          </div>
        )}
        {!editingRule && pattern === request.proposedRule.pattern && request.proposedRule.meaning?.map((m) => <div key={m}>{m}</div>)}
        {request.proposedRule.warning && <div className="error-text">{request.proposedRule.warning}</div>}
      </div>
      {denying ? (
        <form
          className="row"
          onSubmit={(e) => {
            e.preventDefault();
            respond("deny");
          }}
        >
          <label>
            Reason, sent to the model (optional)
            <input ref={reasonInput} value={reason} onChange={(e) => setReason(e.target.value)} placeholder="e.g. don't touch the lockfile; run the tests instead" />
          </label>
          <button type="submit" className="danger" disabled={busy}>
            Deny
          </button>
          <button type="button" onClick={() => setDenying(false)}>
            Cancel
          </button>
        </form>
      ) : (
        <div className="keys">
          <button className="primary" onClick={() => respond("allow-once")} disabled={busy}>
            <kbd>y</kbd> Allow once
          </button>
          <button onClick={() => respond("allow-session")} disabled={busy}>
            <kbd>s</kbd> Allow for this session
          </button>
          <button onClick={() => respond("allow-project")} disabled={busy || !canSave}>
            <kbd>a</kbd> Always allow in this project
          </button>
          {canRunOutside && (
            <button onClick={() => respond("allow-once", true)} disabled={busy} title="Runs this command once with your full rights, outside the sandbox">
              <kbd>o</kbd> Run outside the sandbox
            </button>
          )}
          <button className="danger" onClick={() => setDenying(true)} disabled={busy}>
            <kbd>n</kbd> Deny…
          </button>
        </div>
      )}
      {error && <div className="error-text" role="alert">{error}</div>}
    </div>
  );
}

const CROSSING_LABEL: Record<NonNullable<SandboxRequestInfo["crossing"]>["rule"], string> = {
  network: "Needs the network",
  "outside-path": "Outside the project",
  "real-machine": "Needs the real machine",
  "requested-outside": "Outside the sandbox, as you asked",
  "no-sandbox": "No sandbox",
};

/** Where the call would run, and the rule of the sandbox it would cross. */
function SandboxLine({ info, toolName }: { info: SandboxRequestInfo; toolName: string }) {
  if (info.crossing) {
    return (
      <div className={`notice sandbox-line${info.crossing.rule === "no-sandbox" || info.placement === "outside" ? " error" : ""}`} aria-label="Sandbox">
        <strong>{CROSSING_LABEL[info.crossing.rule]}:</strong> {info.crossing.message}
      </div>
    );
  }
  if (toolName !== "bash" || !info.placement) return null;
  return (
    <div className="muted sandbox-line" aria-label="Sandbox">
      {info.placement === "outside"
        ? "Runs outside the sandbox, with your full rights."
        : `Runs in the sandbox${info.placement === "sandbox-network" ? ", with network" : ", without network"}: it can change files only in the project, and cannot read your keys.`}
    </div>
  );
}
