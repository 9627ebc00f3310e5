// One tool call as a card: name, a one-line summary of its arguments (an edit or write adds
// "+3 −1"), its state and a timer, then its output: a terminal for bash, a diff for edit and write
// (the card is collapsed to its summary by default: the permission dialog shows the diff), an
// excerpt for read, plain text otherwise. States: "needs your approval" (its own timer, from the
// question), "waiting" (prepared, waiting for the batch's other calls), "running" (timer from the
// moment execute began), "done", "failed" (with the error), "denied" (with the reason, as a note,
// never as a failure or inside a terminal), "stopped" (by Stop or Interrupt). A bash card says where
// the command ran; when the sandbox blocked it, what was blocked, with "Run again outside the
// sandbox" (the agent is asked to run it again, and the permission dialog asks first).
import { memo, useEffect, useMemo, useState } from "react";
import type { BashSandboxDetails } from "../../../shared/sandbox";
import { getApi } from "../api/client";
import { errorText, unwrap } from "../state/api-hooks";
import type { BashDetails, EditDetails, ReadDetails, WriteDetails } from "../../../shared/tool-details";
import { formatElapsed, plural, summarizeArgs, textOf } from "../state/format";
import type { ToolCardState } from "../state/session-model";
import { diffStats } from "./diff-parse";
import { DiffCounts, DiffView } from "./DiffView";
import { editArgsDiff, ExcerptView, writeCardDiff } from "./FileViews";
import { TerminalView } from "./TerminalView";
import "./session-content.css";

const STATUS_LABEL = { pending: "not started", queued: "waiting", running: "running", done: "done", error: "failed", denied: "denied", stopped: "stopped" } as const;
const STATUS_TITLE: Partial<Record<ToolCardState["status"], string>> = {
  pending: "Not started yet: the model is still writing it, or the calls before it come first",
  queued: "Prepared: it runs once the other calls of its batch are approved",
};

/** Tools whose cards start collapsed (their summary says enough; edits show their diff in the dialog). */
const COLLAPSED = new Set(["read", "ls", "find", "grep", "edit", "write"]);

/** Whether a card is expanded unless the person opened or closed it. */
export function defaultExpanded(card: ToolCardState): boolean {
  if (card.status === "error" || card.status === "denied") return true;
  if (card.toolName === "bash") return card.status !== "pending";
  return !COLLAPSED.has(card.toolName) || (card.status === "running" && card.toolName !== "edit" && card.toolName !== "write");
}

export function useNow(active: boolean, everyMs = 200): number {
  const [now, setNow] = useState(() => Date.now());
  useEffect(() => {
    if (!active) return;
    const first = setTimeout(() => setNow(Date.now()), 0);
    const timer = setInterval(() => setNow(Date.now()), everyMs);
    return () => {
      clearTimeout(first);
      clearInterval(timer);
    };
  }, [active, everyMs]);
  return now;
}

/** How long it ran (from execute), or, for calls logged without that, what their result says. */
function runTime(card: ToolCardState, now: number): number | null {
  if (card.startedAt !== null) return Math.max(0, (card.endedAt ?? now) - card.startedAt);
  const done = card.result?.details as { durationMs?: number } | undefined;
  return typeof done?.durationMs === "number" ? done.durationMs : null;
}

/** The diff an edit or write card shows: the tool's own once it ran, else a preview from its arguments. */
function fileDiff(card: ToolCardState): { diff: string; label: string } | null {
  const path = typeof card.args.path === "string" ? card.args.path : "";
  if (card.toolName === "edit") {
    const details = card.result?.isError ? undefined : (card.result?.details as EditDetails | undefined);
    return { diff: details?.diff ?? editArgsDiff(path, card.args.edits), label: details ? `Changes to ${path}` : `Proposed changes to ${path}` };
  }
  if (card.toolName === "write") return writeCardDiff(path, card.args.content, card.result?.isError ? undefined : (card.result?.details as WriteDetails | undefined));
  return null;
}

export const ToolCard = memo(function ToolCard({
  card,
  sessionId,
  expanded,
  onToggle,
  awaitingSince,
}: {
  card: ToolCardState;
  sessionId: number;
  expanded: boolean;
  /** Called with the card's id and whether it is expanded now. */
  onToggle: (id: string, expanded: boolean) => void;
  /** When the permission request for this call was asked; set while it waits for an answer. */
  awaitingSince?: number;
}) {
  const awaiting = awaitingSince !== undefined && !["done", "error", "denied", "stopped"].includes(card.status);
  const ticking = awaiting || card.status === "running" || card.status === "queued";
  const now = useNow(ticking);
  const ran = runTime(card, now);
  const summary = summarizeArgs(card.toolName, card.args);
  const diff = useMemo(() => fileDiff(card), [card]);
  const stats = useMemo(() => (diff ? diffStats(diff.diff) : null), [diff]);
  const bodyId = `card-body-${card.toolCallId}`;
  const shownStatus = awaiting ? "awaiting" : card.status;
  let timer: string | null = null;
  if (awaiting) timer = formatElapsed(now - awaitingSince);
  else if (card.status === "queued" && card.queuedAt !== null) timer = formatElapsed(now - card.queuedAt);
  else if (card.status !== "denied" && card.status !== "pending" && ran !== null) timer = formatElapsed(ran);
  return (
    <section className={`card status-${shownStatus}`} data-tool-call-id={card.toolCallId} data-status={shownStatus} aria-label={`${card.toolName} ${summary}`}>
      <button className="card-head" aria-expanded={expanded} aria-controls={bodyId} onClick={() => onToggle(card.toolCallId, expanded)}>
        {card.status === "running" && !awaiting ? <span className="spinner" aria-hidden="true" /> : <span aria-hidden="true">{expanded ? "▾" : "▸"}</span>}
        <span className="name">{card.toolName}</span>
        <span className="summary" title={summary}>
          {summary}
        </span>
        {stats && (stats.added > 0 || stats.removed > 0) && <DiffCounts added={stats.added} removed={stats.removed} />}
        {timer && (
          <span className="elapsed" title={awaiting ? "Waiting for your answer" : card.status === "queued" ? "Waiting for the batch" : "Run time"}>
            {timer}
          </span>
        )}
        {awaiting ? (
          <span className="status awaiting">needs your approval</span>
        ) : (
          <span className={`status ${card.status}`} title={STATUS_TITLE[card.status]}>
            {STATUS_LABEL[card.status]}
          </span>
        )}
      </button>
      {expanded && (
        <div className="card-body" id={bodyId}>
          <Outcome card={card} />
          <CardBody card={card} sessionId={sessionId} diff={diff} awaiting={awaiting} />
        </div>
      )}
    </section>
  );
});

/** A denial or a stop, said plainly above whatever the call showed. */
function Outcome({ card }: { card: ToolCardState }) {
  if (card.status === "denied") {
    return (
      <div className="card-outcome denied" role="note">
        <strong>Denied.</strong> {card.outcomeReason ?? (card.result ? textOf(card.result.content) : "")}
      </div>
    );
  }
  if (card.status === "stopped") {
    return (
      <div className="card-outcome stopped" role="note">
        <strong>Stopped.</strong> {card.outcomeReason ?? ""}
      </div>
    );
  }
  return null;
}

function CardBody({ card, sessionId, diff, awaiting }: { card: ToolCardState; sessionId: number; diff: { diff: string; label: string } | null; awaiting: boolean }) {
  const resultText = card.result ? textOf(card.result.content) : "";
  const blocked = card.status === "denied" || (card.status === "stopped" && card.startedAt === null);
  const error = card.argumentsError ?? (card.result?.isError && !blocked && card.status !== "stopped" ? resultText : null);
  const path = typeof card.args.path === "string" ? card.args.path : "";
  if (awaiting) return <div className="card-meta">Waiting for your answer in the panel below.</div>;
  if (blocked) return null;
  switch (card.toolName) {
    case "bash":
      return <BashBody card={card} sessionId={sessionId} error={error} resultText={resultText} />;
    case "edit":
    case "write": {
      const details = card.toolName === "write" && !card.result?.isError ? (card.result?.details as WriteDetails | undefined) : undefined;
      return (
        <>
          {error && (
            <div className="card-error" role="alert">
              {error}
            </div>
          )}
          {details && (
            <div className="card-meta">
              {details.created ? "Created" : "Replaced"} {details.path}: {plural(details.lines, "line")}, {plural(details.bytes, "byte")}
            </div>
          )}
          {diff && <DiffView diff={diff.diff} label={diff.label} path={path} />}
        </>
      );
    }
    case "read": {
      if (error)
        return (
          <div className="card-error" role="alert">
            {error}
          </div>
        );
      const details = card.result?.details as ReadDetails | undefined;
      const image = card.result?.content.find((b) => b.type === "image");
      if (image?.data) return <img src={`data:${image.mimeType};base64,${image.data}`} alt={`Image ${path}`} style={{ maxWidth: "100%", maxHeight: 320 }} />;
      return (
        <>
          {resultText && <ExcerptView text={resultText} />}
          {details?.truncated && (
            <div className="card-meta">
              Shown: lines {details.startLine}-{details.endLine}
              {details.totalLines ? ` of ${details.totalLines}` : ""}
            </div>
          )}
        </>
      );
    }
    default: {
      if (error)
        return (
          <div className="card-error" role="alert">
            {error}
          </div>
        );
      // MCP tools report progress ("Progress 2 of 5: …") and may return images.
      const progress = card.progress as { phase?: string; progress?: number; total?: number; message?: string } | null;
      const images = card.result?.content.filter((b) => b.type === "image") ?? [];
      if (!card.result && progress?.phase === "progress") {
        return (
          <div className="card-meta">
            Progress {progress.progress}
            {progress.total !== undefined ? ` of ${progress.total}` : ""}
            {progress.message ? `: ${progress.message}` : ""}
          </div>
        );
      }
      return (
        <>
          {resultText ? (
            <pre className="excerpt">
              <div>{resultText}</div>
            </pre>
          ) : (
            images.length === 0 && <div className="card-meta">{card.status === "pending" || card.status === "queued" ? "Not started" : "No output"}</div>
          )}
          {images.map(
            (image, i) =>
              image.type === "image" && (
                <img key={i} src={`data:${image.mimeType};base64,${image.data}`} alt={`Image ${i + 1} from ${card.toolName}`} style={{ maxWidth: "100%", maxHeight: 320 }} />
              ),
          )}
        </>
      );
    }
  }
}

function BashBody({ card, sessionId, error, resultText }: { card: ToolCardState; sessionId: number; error: string | null; resultText: string }) {
  const details = (card.result?.details ?? card.progress) as Partial<BashDetails> | null | undefined;
  const done = details && details.phase === "done" ? details : null;
  const started = card.status !== "pending" && card.status !== "queued";
  const hasOutput = card.chunkCount > 0 || card.storedOutput || resultText !== "";
  return (
    <>
      {started && hasOutput && (
        <TerminalView
          sessionId={sessionId}
          toolCallId={card.toolCallId}
          chunks={card.chunks}
          chunkCount={card.chunkCount}
          fallbackText={card.result ? resultText : ""}
          storedOutput={card.storedOutput && card.chunkCount === 0}
          running={card.status === "running"}
          waitingForInput={card.waitingForInput}
        />
      )}
      {card.status === "running" && !hasOutput && <div className="card-meta">No output yet.</div>}
      {card.status === "running" && !card.waitingForInput && <InterruptButton sessionId={sessionId} toolCallId={card.toolCallId} />}
      {card.skippedBytes > 0 && <div className="card-meta">{card.skippedBytes} bytes of output were skipped while the view caught up (all are in the output file).</div>}
      {done && (
        <div className="card-meta">
          exit {done.exitCode ?? "none"}
          {done.signal ? `, signal ${done.signal}` : ""}
          {done.timedOut ? ", timed out" : ""}
          {done.aborted ? ", interrupted" : ""}
          {done.truncated ? `, output truncated (${done.totalLines} lines)` : ""}
          {done.outputFile ? `, full output in ${done.outputFile}` : ""}
        </div>
      )}
      {done?.sandbox && <SandboxNote sandbox={done.sandbox} sessionId={sessionId} toolCallId={card.toolCallId} />}
      {done?.sandbox?.createdRepository && (
        <div className="notice sandbox-line" role="alert" aria-label="Repository created in the sandbox">
          <strong>Untrusted git repository:</strong> {done.sandbox.createdRepository.message}
        </div>
      )}
      {/* The output is in the terminal; an error without output (it never ran) is said on its own. */}
      {error && !hasOutput && !done?.sandbox?.blocked && (
        <div className="card-error" role="alert">
          {error}
        </div>
      )}
    </>
  );
}

function InterruptButton({ sessionId, toolCallId }: { sessionId: number; toolCallId: string }) {
  const [error, setError] = useState<string | null>(null);
  return (
    <div className="terminal-tools">
      <button type="button" className="small danger" onClick={() => unwrap(getApi().tools.interrupt({ sessionId, toolCallId })).catch((e: unknown) => setError(errorText(e)))}>
        Interrupt
      </button>
      {error && <span className="error-text">{error}</span>}
    </div>
  );
}

function SandboxNote({ sandbox, sessionId, toolCallId }: { sandbox: BashSandboxDetails; sessionId: number; toolCallId: string }) {
  const [state, setState] = useState<{ sent?: boolean; error?: string }>({});
  if (!sandbox.blocked) {
    return (
      <div className="card-meta" aria-label="Where it ran">
        {sandbox.placement === "outside"
          ? `Ran outside the sandbox: ${sandbox.outsideReason ?? "with your full rights."}`
          : `Ran in the sandbox${sandbox.placement === "sandbox-network" ? " with network" : ""}.`}
      </div>
    );
  }
  const rerun = () => {
    setState({});
    unwrap(getApi().tools.rerunOutsideSandbox({ sessionId, toolCallId })).then(
      () => setState({ sent: true }),
      (e: unknown) => setState({ error: errorText(e) }),
    );
  };
  return (
    <div className="notice sandbox-line" role="alert" aria-label="Blocked by the sandbox">
      <strong>Blocked by the sandbox:</strong> {sandbox.blocked.message}
      <div>
        <code>{sandbox.blocked.evidence}</code>
      </div>
      <button onClick={rerun} disabled={state.sent}>
        {state.sent ? "Asked the agent to run it again outside the sandbox" : "Run again outside the sandbox"}
      </button>
      {state.error && <div className="error-text">{state.error}</div>}
    </div>
  );
}
