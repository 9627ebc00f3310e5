// The permission panel, inside the session above the composer. It shows the oldest pending request
// and, when that call belongs to a batch whose other calls also ask, every pending request of the
// batch together, in source order, each with its own choice (PermissionDialog.tsx: RequestRow),
// plus "allow all of these once". Answers go to the host at once; each call still runs only when
// its turn comes (the host keeps the answer). The panel survives a reload: requests live in the host.
// Keyboard (while the panel has the focus, outside its inputs): ↑/↓ or k/j choose the active row;
// y allows it once, s for this session, a always in this project (its rules as shown or edited),
// o runs a command once outside the sandbox, n asks for a reason and denies; Shift+Y allows every
// call of the batch once. The panel takes the focus when it appears and keeps it between answers.
import { useCallback, useEffect, useMemo, useRef, useState } from "react";
import type { PermissionRequest } from "../../../shared/ipc/contract";
import { getApi } from "../api/client";
import { errorText, unwrap } from "../state/api-hooks";
import { canRunOutside, canSaveRule, RequestRow, type Answer } from "./PermissionDialog";
import "./session-content.css";

/** The requests shown together: the oldest one's batch (source order), or it alone. */
export function visibleGroup(requests: readonly PermissionRequest[]): PermissionRequest[] {
  const first = requests[0];
  if (!first) return [];
  if (!first.batch) return [first];
  const id = first.batch.id;
  return requests.filter((r) => r.batch?.id === id).sort((a, b) => a.batch!.position - b.batch!.position);
}

export function PermissionPanel({ requests, projectName }: { requests: readonly PermissionRequest[]; projectName: string }) {
  const group = useMemo(() => visibleGroup(requests), [requests]);
  const box = useRef<HTMLDivElement>(null);
  const [activeId, setActiveId] = useState<string | null>(null);
  const [denyingId, setDenyingId] = useState<string | null>(null);
  const [busy, setBusy] = useState<ReadonlySet<string>>(new Set());
  const [error, setError] = useState<string | null>(null);
  // The rules each row would save, as shown or edited there (for the `a` key).
  const patterns = useRef(new Map<string, string>());
  const notePatterns = useCallback((id: string, pattern: string) => void patterns.current.set(id, pattern), []);
  const active = group.find((r) => r.id === activeId) ?? group[0];
  const batchId = group[0]?.batch?.id ?? null;
  const groupKey = batchId ?? group[0]?.id ?? "";

  // Take the focus when a new group appears (a reload, the next batch).
  useEffect(() => {
    box.current?.focus();
  }, [groupKey]);
  // An answered row leaves: the focus stays in the panel.
  useEffect(() => {
    if (box.current && !box.current.contains(document.activeElement)) box.current.focus();
  }, [active?.id]);

  if (!active) return null;
  const others = requests.length - group.length;

  const answer = (request: PermissionRequest, a: Answer) => {
    if (busy.has(request.id) || (a.decision === "allow-project" && !canSaveRule(request))) return;
    setBusy(new Set([...busy, request.id]));
    setError(null);
    const params =
      a.decision === "deny"
        ? { requestId: request.id, decision: a.decision, ...(a.reason ? { reason: a.reason } : {}) }
        : a.decision === "allow-project"
          ? { requestId: request.id, decision: a.decision, rule: { tool: request.proposedRule.tool, pattern: a.pattern ?? request.proposedRule.pattern } }
          : { requestId: request.id, decision: a.decision, ...(a.outsideSandbox ? { outsideSandbox: true } : {}) };
    if (denyingId === request.id) setDenyingId(null);
    // The next row becomes active at once; the answered one leaves when the host says so.
    const next =
      group.find((r) => r.id !== request.id && !busy.has(r.id) && group.indexOf(r) > group.indexOf(request)) ?? group.find((r) => r.id !== request.id && !busy.has(r.id));
    if (next && request.id === active.id) setActiveId(next.id);
    unwrap(getApi().permissions.respond(params)).catch((e: unknown) => {
      setError(errorText(e));
      setBusy((b) => new Set([...b].filter((id) => id !== request.id)));
    });
  };

  const allowAll = () => {
    if (!batchId) return;
    setError(null);
    setBusy(new Set(group.map((r) => r.id)));
    unwrap(getApi().permissions.respondBatch({ batchId, decision: "allow-once" })).catch((e: unknown) => {
      setError(errorText(e));
      setBusy(new Set());
    });
  };

  const move = (step: number) => {
    const i = group.indexOf(active);
    const next = group[Math.min(group.length - 1, Math.max(0, i + step))];
    if (next) setActiveId(next.id);
  };

  const onKeyDown = (e: React.KeyboardEvent) => {
    const target = e.target as HTMLElement;
    if (target.tagName === "INPUT" || target.tagName === "TEXTAREA" || target.tagName === "SELECT") return;
    if (e.metaKey || e.ctrlKey || e.altKey) return;
    if (e.key === "Y" && e.shiftKey && batchId) allowAll();
    else if (e.key === "ArrowDown" || e.key === "j") move(1);
    else if (e.key === "ArrowUp" || e.key === "k") move(-1);
    else if (e.shiftKey) return;
    else if (e.key === "y") answer(active, { decision: "allow-once" });
    else if (e.key === "s") answer(active, { decision: "allow-session" });
    else if (e.key === "a") answer(active, { decision: "allow-project", pattern: patterns.current.get(active.id) ?? active.proposedRule.pattern });
    else if (e.key === "o" && canRunOutside(active)) answer(active, { decision: "allow-once", outsideSandbox: true });
    else if (e.key === "n") setDenyingId(active.id);
    else return;
    e.preventDefault();
  };

  const title = group.length > 1 ? `${group.length} calls of this turn need your approval` : null;
  return (
    <div
      className="permission"
      role="dialog"
      aria-modal="false"
      aria-label={title ?? `Allow ${active.toolName}: ${active.summary.title}?`}
      tabIndex={-1}
      ref={box}
      onKeyDown={onKeyDown}
      data-request-id={active.id}
      data-batch-id={batchId ?? undefined}
    >
      {(title || others > 0) && (
        <div className="perm-head">
          {title && <h2 className="perm-batch-title">{title}</h2>}
          {others > 0 && <span className="muted">{others === 1 ? "1 more request waits" : `${others} more requests wait`} after these</span>}
          <span className="spacer" />
          {batchId && group.length > 1 && (
            <button type="button" className="primary" onClick={allowAll} disabled={busy.size > 0 && group.every((r) => busy.has(r.id))}>
              <kbd>⇧Y</kbd> Allow all {group.length} once
            </button>
          )}
        </div>
      )}
      <ol className="perm-rows">
        {group.map((request) => (
          <RequestRow
            key={request.id}
            request={request}
            active={request.id === active.id}
            busy={busy.has(request.id)}
            projectName={projectName}
            denying={denyingId === request.id}
            onDenying={(open) => setDenyingId(open ? request.id : null)}
            onActivate={() => setActiveId(request.id)}
            onAnswer={(a) => answer(request, a)}
            onRefocus={() => box.current?.focus()}
            onPatterns={notePatterns}
          />
        ))}
      </ol>
      {group.length > 1 && <div className="perm-hint muted">↑ ↓ choose a call · y s a o n answer it · ⇧Y allows all of these once</div>}
      {error && (
        <div className="error-text" role="alert">
          {error}
        </div>
      )}
    </div>
  );
}
