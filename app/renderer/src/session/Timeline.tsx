// A parallel batch's timeline: one bar per call, from when it started to when it finished (or
// now, while it runs), on a shared time axis starting at the batch's first start.
import { memo, useEffect, useState } from "react";
import { formatElapsed } from "../state/format";
import type { ToolCardState } from "../state/session-model";

export const Timeline = memo(function Timeline({ cards }: { cards: ToolCardState[] }) {
  const running = cards.some((c) => c.status === "running");
  const [now, setNow] = useState(() => Date.now());
  useEffect(() => {
    if (!running) return;
    const timer = setInterval(() => setNow(Date.now()), 250);
    return () => clearInterval(timer);
  }, [running]);
  const started = cards.filter((c) => c.startedAt !== null);
  if (started.length === 0) return null;
  const t0 = Math.min(...started.map((c) => c.startedAt!));
  const t1 = Math.max(...started.map((c) => c.endedAt ?? now));
  const span = Math.max(1, t1 - t0);
  return (
    <div className="timeline" role="group" aria-label={`Timeline of ${cards.length} parallel calls, ${formatElapsed(span)}`}>
      {cards.map((card) => {
        const start = card.startedAt === null ? null : card.startedAt - t0;
        const end = card.startedAt === null ? null : (card.endedAt ?? now) - t0;
        return (
          <div className="timeline-row" key={card.toolCallId}>
            <span className="label" title={card.toolName}>
              {card.toolName} {typeof card.args.command === "string" ? card.args.command : typeof card.args.path === "string" ? card.args.path : ""}
            </span>
            <div className="timeline-track">
              {start !== null && end !== null && (
                <div
                  className={`timeline-bar ${card.status}`}
                  style={{ left: `${(start / span) * 100}%`, width: `${(Math.max(0, end - start) / span) * 100}%` }}
                  title={`${formatElapsed(start)} → ${formatElapsed(end)}`}
                />
              )}
            </div>
            <span className="muted">{start !== null && end !== null ? `+${formatElapsed(start)} · ${formatElapsed(end - start)}` : "—"}</span>
          </div>
        );
      })}
    </div>
  );
});
