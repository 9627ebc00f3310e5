// One tool call as a card: name, a one-line summary of its arguments, status, elapsed time (live,
// with a spinner, while it runs), then its output: a terminal for bash, a diff for edit and write,
// an excerpt for read, plain text otherwise. Errors are shown in red with their message. A bash
// card says where the command ran; when the sandbox blocked it, what was blocked, with "Run again
// outside the sandbox" (the agent is asked to run it again, and the permission dialog asks first).
import { memo, useEffect, useState } from "react";
import type { BashSandboxDetails } from "../../../shared/sandbox";
import { getApi } from "../api/client";
import { errorText, unwrap } from "../state/api-hooks";
import type { BashDetails, EditDetails, ReadDetails, WriteDetails } from "../../../shared/tool-details";
import { formatElapsed, summarizeArgs, textOf } from "../state/format";
import type { ToolCardState } from "../state/session-model";
import { DiffView, editArgsDiff, ExcerptView, writeCardDiff } from "./FileViews";
import { TerminalView } from "./TerminalView";

const STATUS_LABEL = { pending: "waiting", running: "running", done: "done", error: "failed" } as const;

function useNow(active: boolean): number {
  const [now, setNow] = useState(() => Date.now());
  useEffect(() => {
    if (!active) return;
    const timer = setInterval(() => setNow(Date.now()), 200);
    return () => clearInterval(timer);
  }, [active]);
  return now;
}

function elapsedOf(card: ToolCardState, now: number): number | null {
  const done = card.result?.details as { durationMs?: number } | undefined;
  if (card.startedAt !== null) return Math.max(0, (card.endedAt ?? now) - card.startedAt);
  return typeof done?.durationMs === "number" ? done.durationMs : null;
}

export const ToolCard = memo(function ToolCard({
  card,
  sessionId,
  expanded,
  onToggle,
  awaitingApproval = false,
}: {
  card: ToolCardState;
  sessionId: number;
  expanded: boolean;
  onToggle: (id: string) => void;
  /** A permission request for this call is open: it has not started. */
  awaitingApproval?: boolean;
}) {
  const running = card.status === "running" && !awaitingApproval;
  const now = useNow(running);
  const elapsed = elapsedOf(card, now);
  const summary = summarizeArgs(card.toolName, card.args);
  const bodyId = `card-body-${card.toolCallId}`;
  return (
    <section
      className={`card${card.status === "error" ? " error" : ""}`}
      data-tool-call-id={card.toolCallId}
      data-status={awaitingApproval ? "awaiting" : card.status}
      aria-label={`${card.toolName} ${summary}`}
    >
      <button className="card-head" aria-expanded={expanded} aria-controls={bodyId} onClick={() => onToggle(card.toolCallId)}>
        {running ? <span className="spinner" aria-hidden="true" /> : <span aria-hidden="true">{expanded ? "▾" : "▸"}</span>}
        <span className="name">{card.toolName}</span>
        <span className="summary" title={summary}>
          {summary}
        </span>
        {elapsed !== null && !awaitingApproval && <span className="elapsed">{formatElapsed(elapsed)}</span>}
        {awaitingApproval ? <span className="status awaiting">needs your approval</span> : <span className={`status ${card.status}`}>{STATUS_LABEL[card.status]}</span>}
      </button>
      {expanded && (
        <div className="card-body" id={bodyId}>
          <CardBody card={card} sessionId={sessionId} />
        </div>
      )}
    </section>
  );
});

function CardBody({ card, sessionId }: { card: ToolCardState; sessionId: number }) {
  const resultText = card.result ? textOf(card.result.content) : "";
  const error = card.argumentsError ?? (card.result?.isError ? resultText : null);
  const path = typeof card.args.path === "string" ? card.args.path : "";
  switch (card.toolName) {
    case "bash": {
      const details = (card.result?.details ?? card.progress) as Partial<BashDetails> | null | undefined;
      const done = details && details.phase === "done" ? details : null;
      // The sandbox's note to the model is shown once, as the card's own notice.
      const shownError = done?.sandbox?.blocked && error ? error.replace(/\n\n\[Sandbox: [\s\S]*\]$/, "") : error;
      return (
        <>
          {(card.status !== "pending" || card.chunkCount > 0 || resultText) && (
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
          {shownError && card.chunkCount > 0 && <div className="card-error" role="alert">{lastLines(shownError, 6)}</div>}
          {shownError && card.chunkCount === 0 && !resultText && <div className="card-error" role="alert">{shownError}</div>}
        </>
      );
    }
    case "edit": {
      const details = card.result?.isError ? undefined : (card.result?.details as EditDetails | undefined);
      return (
        <>
          {error && <div className="card-error" role="alert">{error}</div>}
          <DiffView diff={details?.diff ?? editArgsDiff(path, card.args.edits)} label={details ? `Changes to ${path}` : `Proposed changes to ${path}`} />
        </>
      );
    }
    case "write": {
      const details = card.result?.isError ? undefined : (card.result?.details as WriteDetails | undefined);
      const shown = writeCardDiff(path, card.args.content, details);
      return (
        <>
          {error && <div className="card-error" role="alert">{error}</div>}
          {details && <div className="card-meta">{details.created ? "Created" : "Replaced"} {details.path}: {details.lines} lines, {details.bytes} bytes</div>}
          <DiffView diff={shown.diff} label={shown.label} />
        </>
      );
    }
    case "read": {
      if (error) return <div className="card-error" role="alert">{error}</div>;
      const details = card.result?.details as ReadDetails | undefined;
      const image = card.result?.content.find((b) => b.type === "image");
      if (image?.data) return <img src={`data:${image.mimeType};base64,${image.data}`} alt={`Image ${path}`} style={{ maxWidth: "100%", maxHeight: 320 }} />;
      return (
        <>
          {resultText && <ExcerptView text={resultText} />}
          {details?.truncated && <div className="card-meta">Shown: lines {details.startLine}-{details.endLine}{details.totalLines ? ` of ${details.totalLines}` : ""}</div>}
        </>
      );
    }
    default: {
      if (error) return <div className="card-error" role="alert">{error}</div>;
      // MCP tools report progress ("Progress 2 of 5: …") and may return images.
      const progress = card.progress as { phase?: string; progress?: number; total?: number; message?: string } | null;
      const images = card.result?.content.filter((b) => b.type === "image") ?? [];
      if (!card.result && progress?.phase === "progress") {
        return <div className="card-meta">Progress {progress.progress}{progress.total !== undefined ? ` of ${progress.total}` : ""}{progress.message ? `: ${progress.message}` : ""}</div>;
      }
      return (
        <>
          {resultText ? <pre className="excerpt"><div>{resultText}</div></pre> : images.length === 0 && <div className="card-meta">{card.status === "pending" ? "Not started" : "No output"}</div>}
          {images.map((image, i) => image.type === "image" && <img key={i} src={`data:${image.mimeType};base64,${image.data}`} alt={`Image ${i + 1} from ${card.toolName}`} style={{ maxWidth: "100%", maxHeight: 320 }} />)}
        </>
      );
    }
  }
}

function lastLines(text: string, n: number): string {
  const lines = text.trimEnd().split("\n");
  return lines.length > n ? `…\n${lines.slice(-n).join("\n")}` : text;
}

function SandboxNote({ sandbox, sessionId, toolCallId }: { sandbox: BashSandboxDetails; sessionId: number; toolCallId: string }) {
  const [state, setState] = useState<{ sent?: boolean; error?: string }>({});
  if (!sandbox.blocked) {
    return (
      <div className="card-meta" aria-label="Where it ran">
        {sandbox.placement === "outside" ? `Ran outside the sandbox: ${sandbox.outsideReason ?? "with your full rights."}` : `Ran in the sandbox${sandbox.placement === "sandbox-network" ? " with network" : ""}.`}
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
