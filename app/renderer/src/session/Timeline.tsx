// A parallel batch's timeline: one row per call on a shared time axis from the batch's first
// start, with two segments: waiting (prepared: the permission question, or the batch's other calls
// being approved) and running (from the moment its execute began to its end, or now). So the
// person's approval delays show as waiting, not as run time. A denied call has only its wait; a
// call logged before execute times were kept shows one running segment.
import { memo } from "react";
import { formatElapsed } from "../state/format";
import type { ToolCardState } from "../state/session-model";
import { useNow } from "./ToolCard";
import "./session-content.css";

const MIN_WAIT_MS = 50;

interface Span {
  card: ToolCardState;
  /** Waiting segment, relative to the axis start (null when unknown or none). */
  wait: [number, number] | null;
  run: [number, number] | null;
}

function spansOf(cards: ToolCardState[], now: number): { spans: Span[]; t0: number; t1: number } | null {
  const starts = cards.map((c) => c.queuedAt ?? c.startedAt).filter((t): t is number => t !== null);
  if (starts.length === 0) return null;
  const t0 = Math.min(...starts);
  let t1 = t0;
  const spans = cards.map((card): Span => {
    const queued = card.queuedAt ?? card.startedAt;
    const end = card.endedAt ?? now;
    const waitEnd = card.startedAt ?? end;
    // Preparation alone (a few milliseconds) is not a wait worth showing.
    const wait: [number, number] | null = queued !== null && waitEnd - queued >= MIN_WAIT_MS ? [queued - t0, waitEnd - t0] : null;
    const run: [number, number] | null = card.startedAt !== null ? [card.startedAt - t0, Math.max(card.startedAt, end) - t0] : null;
    t1 = Math.max(t1, wait?.[1] !== undefined ? wait[1] + t0 : t0, run?.[1] !== undefined ? run[1] + t0 : t0);
    return { card, wait, run };
  });
  return { spans, t0, t1 };
}

export const Timeline = memo(function Timeline({ cards }: { cards: ToolCardState[] }) {
  const live = cards.some((c) => c.status === "running" || c.status === "queued");
  const now = useNow(live, 250);
  const laid = spansOf(cards, now);
  if (!laid) return null;
  const span = Math.max(1, laid.t1 - laid.t0);
  const pct = (ms: number) => `${(ms / span) * 100}%`;
  const ran = laid.spans.reduce((n, s) => n + (s.run ? s.run[1] - s.run[0] : 0), 0);
  return (
    <div className="timeline" role="group" aria-label={`Timeline of ${cards.length} parallel calls, ${formatElapsed(span)}`}>
      <div className="timeline-legend" aria-hidden="true">
        <span className="swatch wait" /> waiting <span className="swatch run" /> running
        <span className="muted">
          {" "}
          · {formatElapsed(span)} in all, {formatElapsed(ran)} of run time
        </span>
      </div>
      {laid.spans.map(({ card, wait, run }) => (
        <div className="timeline-row" key={card.toolCallId} data-tool-call-id={card.toolCallId}>
          <span className="label" title={card.toolName}>
            {card.toolName} {typeof card.args.command === "string" ? card.args.command : typeof card.args.path === "string" ? card.args.path : ""}
          </span>
          <div className="timeline-track">
            {wait && <div className="timeline-seg wait" style={{ left: pct(wait[0]), width: pct(wait[1] - wait[0]) }} title={`waited ${formatElapsed(wait[1] - wait[0])}`} />}
            {run && (
              <div className={`timeline-seg run ${card.status}`} style={{ left: pct(run[0]), width: pct(run[1] - run[0]) }} title={`ran ${formatElapsed(run[1] - run[0])}`} />
            )}
          </div>
          <span className="muted timeline-times">
            {wait ? `waited ${formatElapsed(wait[1] - wait[0])}` : ""}
            {wait && run ? " · " : ""}
            {run ? `ran ${formatElapsed(run[1] - run[0])}` : card.status === "denied" ? "denied" : ""}
          </span>
        </div>
      ))}
    </div>
  );
});
