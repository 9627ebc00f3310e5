// The virtualized transcript: only the rows in view (plus a margin) are in the DOM, each measured
// after render, so a 10,000-message session opens as fast as a short one. It follows the bottom
// while the agent writes, unless the person has scrolled up; `jumpTo` scrolls to a message
// position (search hits) and flashes it. Messages a compaction in force summarizes stay, marked
// as not sent to the model.
import { useVirtualizer } from "@tanstack/react-virtual";
import { useCallback, useEffect, useLayoutEffect, useRef, useState } from "react";
import { COMPACTION, COMPACTION_UNDO, type CompactionState } from "../state/compaction";
import { itemIndexOfPosition, type SessionModel, type TranscriptItem } from "../state/session-model";
import { CompactionEntry, CompactionUndoNote } from "./CompactionEntry";
import { AssistantMessageView, CustomMessageView, UserMessageView, type RowActions } from "./MessageViews";
import { Timeline } from "./Timeline";
import { ToolCard } from "./ToolCard";

export interface TranscriptProps {
  sessionId: number;
  model: SessionModel;
  items: TranscriptItem[];
  jumpTo: number | null;
  actions: RowActions;
  compaction: CompactionState;
  running: boolean;
}

const DEFAULT_COLLAPSED = new Set(["read", "ls", "find", "grep"]);

export function Transcript({ sessionId, model, items, jumpTo, actions, compaction, running }: TranscriptProps) {
  const scroller = useRef<HTMLDivElement>(null);
  const atBottom = useRef(true);
  const [toggled, setToggled] = useState<ReadonlySet<string>>(new Set());
  const [flash, setFlash] = useState<number | null>(null);
  // TanStack Virtual returns a mutable instance; these components are not memoized by the compiler.
  // eslint-disable-next-line react-hooks/incompatible-library
  const virtualizer = useVirtualizer({
    count: items.length,
    getScrollElement: () => scroller.current,
    estimateSize: (i) => (items[i]?.kind === "tool" ? 40 : 60),
    getItemKey: (i) => items[i]?.key ?? i,
    overscan: 6,
  });

  const onToggle = useCallback((id: string) => {
    setToggled((prev) => {
      const next = new Set(prev);
      if (!next.delete(id)) next.add(id);
      return next;
    });
  }, []);

  // Follow the bottom while new content arrives, if we were there.
  useLayoutEffect(() => {
    if (atBottom.current && items.length > 0 && jumpTo === null) virtualizer.scrollToIndex(items.length - 1, { align: "end" });
  });

  useEffect(() => {
    if (jumpTo === null || items.length === 0) return;
    const index = itemIndexOfPosition(items, jumpTo);
    atBottom.current = false;
    virtualizer.scrollToIndex(index, { align: "start" });
    setFlash(jumpTo);
    // Measurements settle after the first render of the rows: scroll again once they have.
    const timer = setTimeout(() => virtualizer.scrollToIndex(index, { align: "start" }), 120);
    return () => clearTimeout(timer);
    // eslint-disable-next-line react-hooks/exhaustive-deps -- only when the target changes or the transcript first loads
  }, [jumpTo, items.length === 0]);

  const onScroll = () => {
    const el = scroller.current;
    if (el) atBottom.current = el.scrollHeight - el.scrollTop - el.clientHeight < 40;
  };

  return (
    <div className="transcript" ref={scroller} onScroll={onScroll} role="log" aria-label="Transcript" aria-live="off" tabIndex={0}>
      <div className="transcript-inner" style={{ height: virtualizer.getTotalSize() }}>
        {virtualizer.getVirtualItems().map((row) => {
          const item = items[row.index]!;
          const summarized = item.position < compaction.firstKeptIndex && item.kind !== "custom";
          return (
            <div
              key={row.key}
              data-index={row.index}
              ref={virtualizer.measureElement}
              className={`transcript-row${flash === item.position && item.kind !== "tool" ? " jump" : ""}${summarized ? " summarized" : ""}`}
              title={summarized ? "Summarized: not sent to the model while the summary is in force" : undefined}
              style={{ transform: `translateY(${row.start}px)` }}
            >
              <Row item={item} model={model} sessionId={sessionId} toggled={toggled} onToggle={onToggle} actions={actions} compaction={compaction} running={running} />
            </div>
          );
        })}
      </div>
    </div>
  );
}

interface RowProps {
  item: TranscriptItem;
  model: SessionModel;
  sessionId: number;
  toggled: ReadonlySet<string>;
  onToggle: (id: string) => void;
  actions: RowActions;
  compaction: CompactionState;
  running: boolean;
}

function Row({ item, model, sessionId, toggled, onToggle, actions, compaction, running }: RowProps) {
  switch (item.kind) {
    case "user":
      return <UserMessageView message={item.message} position={item.position} actions={actions} />;
    case "assistant":
      return <AssistantMessageView message={item.message} position={item.position} streaming={item.streaming} actions={actions} />;
    case "custom":
      if (item.message.customType === COMPACTION) return <CompactionEntry message={item.message} position={item.position} status={compaction.statusOf.get(item.position)} running={running} actions={actions} />;
      if (item.message.customType === COMPACTION_UNDO) return <CompactionUndoNote message={item.message} position={item.position} />;
      return <CustomMessageView message={item.message} position={item.position} />;
    case "tool": {
      const card = model.tools.get(item.toolCallId);
      if (!card) return null;
      const byDefault = card.status === "error" || card.status === "running" || !DEFAULT_COLLAPSED.has(card.toolName);
      return <ToolCard card={card} sessionId={sessionId} expanded={toggled.has(card.toolCallId) ? !byDefault : byDefault} onToggle={onToggle} />;
    }
    case "timeline": {
      const cards = item.toolCallIds.map((id) => model.tools.get(id)).filter((c) => c !== undefined);
      return <Timeline cards={cards} />;
    }
  }
}
