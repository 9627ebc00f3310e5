// The permission dialog, inside the session above the composer: the oldest pending request of the
// session (the loop asks in source order), with "1 of N" when more wait. Keyboard-driven: y allows
// once, s allows for this session, a always allows in this project (the rule's scope and pattern
// are shown and editable), n denies and asks for an optional reason, sent to the model.
import { useEffect, useRef, useState } from "react";
import type { PermissionRequest } from "../../../shared/ipc/contract";
import { getApi } from "../api/client";
import { errorText, unwrap } from "../state/api-hooks";
import { DiffView } from "./FileViews";

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

  const respond = (decision: Decision) => {
    if (busy) return;
    setBusy(true);
    setError(null);
    const params =
      decision === "deny"
        ? { requestId: request.id, decision, ...(reason.trim() ? { reason: reason.trim() } : {}) }
        : decision === "allow-project"
          ? { requestId: request.id, decision, rule: { tool: request.proposedRule.tool, pattern: pattern.trim() || request.proposedRule.pattern } }
          : { requestId: request.id, decision };
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
      {summary.command !== undefined && <pre aria-label="Command">{summary.command}</pre>}
      {summary.path !== undefined && summary.command === undefined && <div className="muted">{summary.path}</div>}
      {summary.diff && <DiffView diff={summary.diff} label="Proposed change" />}
      <div className="muted" style={{ fontSize: 12 }}>
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
          <button onClick={() => respond("allow-project")} disabled={busy}>
            <kbd>a</kbd> Always allow in this project
          </button>
          <button className="danger" onClick={() => setDenying(true)} disabled={busy}>
            <kbd>n</kbd> Deny…
          </button>
        </div>
      )}
      {error && <div className="error-text" role="alert">{error}</div>}
    </div>
  );
}
