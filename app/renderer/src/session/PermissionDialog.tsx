// One permission request as a row of the permission panel (PermissionPanel.tsx): a line saying
// what the call would do; when it is the panel's active row, everything the person needs to decide
// (why Lathe asks, warnings, where it would run and which sandbox rule it would cross, the exact
// command or the file and its diff, the rules "always allow" would save, one per part, on one
// line, editable) and its choices: allow once, for this session, always in this project, run a
// command outside the sandbox, deny with a reason for the model. An inactive row keeps its own
// allow-once and deny buttons. The row does not answer by itself: the panel does (`onAnswer`).
import { useEffect, useRef, useState } from "react";
import type { PermissionRequest } from "../../../shared/ipc/contract";
import type { SandboxRequestInfo } from "../../../shared/sandbox";
import { DiffView } from "./DiffView";
import { McpCallSummary } from "./McpCallSummary";

export type Decision = "allow-once" | "allow-session" | "allow-project" | "deny";

export interface Answer {
  decision: Decision;
  outsideSandbox?: boolean;
  /** With allow-project: the rules as edited, one per line. */
  pattern?: string;
  reason?: string;
}

export interface RequestRowProps {
  request: PermissionRequest;
  active: boolean;
  busy: boolean;
  projectName: string;
  /** Denying: the reason input is open (the panel opens it with `n`). */
  denying: boolean;
  onDenying: (open: boolean) => void;
  onActivate: () => void;
  onAnswer: (answer: Answer) => void;
  /** Gives the keyboard back to the panel (after Escape in an input). */
  onRefocus: () => void;
  /** Tells the panel the rules as edited (one per line), for its `a` key. */
  onPatterns: (requestId: string, pattern: string) => void;
}

export function canRunOutside(request: PermissionRequest): boolean {
  return request.toolName === "bash" && request.sandbox?.available === true && request.sandbox.placement !== "outside";
}

export function canSaveRule(request: PermissionRequest): boolean {
  return request.proposedRule.pattern.trim() !== "";
}

/** What a row says in one line: the command, or the tool's title. */
export function oneLine(request: PermissionRequest): string {
  const text = request.summary.command ?? request.summary.title;
  const first = text.split("\n", 1)[0] ?? "";
  return text.includes("\n") ? `${first} …` : first;
}

export function RequestRow({ request, active, busy, projectName, denying, onDenying, onActivate, onAnswer, onRefocus, onPatterns }: RequestRowProps) {
  const [reason, setReason] = useState("");
  const [patterns, setPatterns] = useState(() => request.proposedRule.pattern.split("\n").filter(Boolean));
  const [editingRule, setEditingRule] = useState(false);
  const reasonInput = useRef<HTMLInputElement>(null);
  useEffect(() => {
    if (denying && active) reasonInput.current?.focus();
  }, [denying, active]);

  const title = `${request.toolName}: ${oneLine(request)}`;
  const edited = patterns.join("\n") !== request.proposedRule.pattern;
  const chosen =
    patterns
      .map((p) => p.trim())
      .filter(Boolean)
      .join("\n") || request.proposedRule.pattern;
  useEffect(() => onPatterns(request.id, chosen), [request.id, chosen, onPatterns]);
  const always = () => onAnswer({ decision: "allow-project", pattern: chosen });

  if (!active) {
    return (
      <li className="perm-row" data-request-id={request.id}>
        <button type="button" className="perm-line" onClick={onActivate} aria-label={`Show request: ${title}`}>
          <span className="perm-tool">{request.toolName}</span> <code>{oneLine(request)}</code>
        </button>
        <span className="perm-row-keys">
          <button type="button" className="small" disabled={busy} onClick={() => onAnswer({ decision: "allow-once" })} aria-label={`Allow once: ${title}`}>
            Allow once
          </button>
          <button type="button" className="small danger" disabled={busy} onClick={() => onAnswer({ decision: "deny" })} aria-label={`Deny: ${title}`}>
            Deny
          </button>
        </span>
      </li>
    );
  }

  const { summary } = request;
  const ruleCount = patterns.length;
  return (
    <li className="perm-row active" data-request-id={request.id} aria-current="true">
      <h3 id={`perm-title-${request.id}`} className="perm-title">
        Allow {request.toolName}: {summary.title}?
      </h3>
      {summary.outsideProject && <div className="notice error">This touches a path outside the project folder.</div>}
      {request.sandbox && <SandboxLine info={request.sandbox} toolName={request.toolName} />}
      {request.warnings?.map((w) => (
        <div key={w} className="notice" role="note">
          {w}
        </div>
      ))}
      {summary.command !== undefined && <pre aria-label="Command">{summary.command}</pre>}
      {request.reasons && request.reasons.length > 0 && (
        <ul aria-label="Why Lathe asks" className="perm-reasons">
          {request.reasons.map((r) => (
            <li key={r}>{r}</li>
          ))}
        </ul>
      )}
      {summary.path !== undefined && summary.command === undefined && <div className="muted">{summary.path}</div>}
      {summary.diff && <DiffView diff={summary.diff} label="Proposed change" path={summary.path} />}
      {summary.mcp && <McpCallSummary call={summary.mcp} args={request.args} />}
      <div className="perm-rule" aria-label="Proposed rule">
        {!canSaveRule(request) ? (
          <div>No rule can allow this: Lathe will ask each time.</div>
        ) : (
          <div className="perm-rule-line">
            <span>
              Always allow saves {ruleCount === 1 ? "a rule" : `${ruleCount} rules`} for project {projectName}: {request.proposedRule.tool}
            </span>
            {patterns.map((p, i) =>
              editingRule ? (
                <input
                  key={i}
                  aria-label={ruleCount === 1 ? "Rule pattern" : `Rule pattern ${i + 1}`}
                  value={p}
                  size={Math.max(8, p.length + 2)}
                  onChange={(e) => setPatterns(patterns.map((q, j) => (j === i ? e.target.value : q)))}
                  onKeyDown={(e) => {
                    if (e.key === "Enter") always();
                    if (e.key === "Escape") {
                      // Keeps the edit; the keys answer again.
                      e.preventDefault();
                      e.stopPropagation();
                      setEditingRule(false);
                      onRefocus();
                    }
                  }}
                  autoFocus={i === 0}
                />
              ) : (
                <code key={i} className="rule-chip">
                  {p}
                </code>
              ),
            )}
            {!editingRule && (
              <button type="button" className="link" onClick={() => setEditingRule(true)}>
                edit pattern
              </button>
            )}
          </div>
        )}
        {!editingRule &&
          !edited &&
          request.proposedRule.meaning?.map((m) => (
            <div key={m} className="perm-meaning">
              {m}
            </div>
          ))}
        {request.proposedRule.warning && <div className="error-text">{request.proposedRule.warning}</div>}
      </div>
      {denying ? (
        <form
          className="row"
          onSubmit={(e) => {
            e.preventDefault();
            onAnswer({ decision: "deny", ...(reason.trim() ? { reason: reason.trim() } : {}) });
          }}
          onKeyDown={(e) => {
            if (e.key === "Escape") {
              e.preventDefault();
              e.stopPropagation();
              onDenying(false);
              onRefocus();
            }
          }}
        >
          <label>
            Reason, sent to the model (optional)
            <input ref={reasonInput} value={reason} onChange={(e) => setReason(e.target.value)} placeholder="e.g. don't touch the lockfile; run the tests instead" />
          </label>
          <button type="submit" className="danger" disabled={busy}>
            Deny
          </button>
          <button type="button" onClick={() => onDenying(false)}>
            Cancel
          </button>
        </form>
      ) : (
        <div className="keys">
          <button className="primary" onClick={() => onAnswer({ decision: "allow-once" })} disabled={busy}>
            <kbd>y</kbd> Allow once
          </button>
          <button onClick={() => onAnswer({ decision: "allow-session" })} disabled={busy}>
            <kbd>s</kbd> Allow for this session
          </button>
          <button onClick={always} disabled={busy || !canSaveRule(request)}>
            <kbd>a</kbd> Always allow in this project
          </button>
          {canRunOutside(request) && (
            <button
              onClick={() => onAnswer({ decision: "allow-once", outsideSandbox: true })}
              disabled={busy}
              title="Runs this command once with your full rights, outside the sandbox"
            >
              <kbd>o</kbd> Run outside the sandbox
            </button>
          )}
          <button className="danger" onClick={() => onDenying(true)} disabled={busy}>
            <kbd>n</kbd> Deny…
          </button>
        </div>
      )}
    </li>
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
