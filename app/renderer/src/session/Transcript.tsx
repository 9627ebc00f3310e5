// The virtualized transcript: only the rows in view (plus a margin) are in the DOM, each measured
// after render, so a 10,000-message session opens as fast as a short one. It follows the bottom
// while the agent writes, unless the person has scrolled up; `jumpTo` scrolls to a message
// position (search hits; a hit in a tool's output opens that call's card, expanded) and marks it
// until the next jump. Messages a compaction in force summarizes stay, marked
// as not sent to the model.
// Performance: rows are memoized and get only what they show (a tool row its card), so a
// streaming update re-renders the streaming message and the cards that changed; following the
// bottom is done by the virtualizer from its row measurements (it reads no layout per frame: a
// scroll to the end read the list's height, forcing a layout, every frame); rows are placed by the virtualizer itself (directDomUpdates), so a row
// measured or resized re-renders nothing unless the range of rows shown changes. The virtualizer's item key function keeps its identity across renders
// (a new one makes TanStack Virtual recompute every row's offset), so an update costs O(rows
// changed), not O(transcript).
// Pages: the transcript holds a window of a long session. Scrolling near the top loads the page
// before it, keeping what is on screen where it was (TanStack Virtual's anchorTo "end" moves the
// scroll offset by what was added above); a window opened around an older message loads the next page near the
// bottom, and offers "Show latest".
import { useVirtualizer } from "@tanstack/react-virtual";
import { memo, useCallback, useEffect, useMemo, useRef, useState } from "react";
import { COMPACTION, COMPACTION_UNDO, type CompactionState } from "../state/compaction";
import { atEnd, jumpTargetIndex, type SessionModel, type ToolCardState, type TranscriptItem } from "../state/session-model";
import { CompactionEntry, CompactionUndoNote } from "./CompactionEntry";
import { AssistantMessageView, CustomMessageView, UserMessageView, type RowActions } from "./MessageViews";
import { Timeline } from "./Timeline";
import { defaultExpanded, ToolCard } from "./ToolCard";
import type { TurnChanges } from "../../../shared/ipc/checkpoint-schemas";
import { TurnFiles, type CallNamer } from "./FilesChanged";

/** What the transcript needs to show each turn's changed files. */
export interface FilesContext {
  byPosition: ReadonlyMap<number, TurnChanges>;
  name: CallNamer;
  maxFileBytes: number;
}

export interface TranscriptProps {
  sessionId: number;
  model: SessionModel;
  items: TranscriptItem[];
  jumpTo: number | null;
  actions: RowActions;
  compaction: CompactionState;
  running: boolean;
  /** Tool calls waiting for the person's permission, with when each was asked. */
  awaitingApproval: ReadonlyMap<string, number>;
  /** Position of the failed last answer that offers Retry, if any. */
  retryPosition?: number | null;
  paging?: TranscriptPaging;
  /** Each turn's changed files (checkpoints). */
  files?: FilesContext;
}

export interface TranscriptPaging {
  loadOlder: () => Promise<boolean>;
  loadNewer: () => Promise<boolean>;
  showLatest: () => void;
}

/** Load the next page when the view is this close (px) to the loaded window's top or bottom. */
const PAGE_MARGIN = 1200;

export function Transcript({ sessionId, model, items, jumpTo, actions, compaction, running, awaitingApproval, retryPosition = null, paging, files }: TranscriptProps) {
  const scroller = useRef<HTMLDivElement>(null);
  const attached = atEnd(model);
  // The key function reads the current items through a ref, so it changes only when the rows are
  // replaced (count or the first or last key changes), not on every update.
  const itemsRef = useRef(items);
  itemsRef.current = items;
  const firstKey = items[0]?.key;
  const lastKey = items[items.length - 1]?.key;
  // eslint-disable-next-line react-hooks/exhaustive-deps -- a new key function exactly when the rows were replaced
  const getItemKey = useMemo(() => (i: number) => itemsRef.current[i]?.key ?? i, [items.length, firstKey, lastKey]);
  const estimateSize = useCallback((i: number) => (itemsRef.current[i]?.kind === "tool" ? 40 : 60), []);
  // Whether to follow the bottom: cleared when the person scrolls up (or jumps), set again when
  // they scroll back to the end.
  const atBottom = useRef(jumpTo === null);
  const lastScrollTop = useRef(0);
  const lastInput = useRef(-Infinity);
  const noteInput = () => {
    lastInput.current = performance.now();
  };
  // The person's own open/closed choice per card. Absolute, not "toggled from the default": a
  // card's default changes with its state (a waiting edit is closed, a denied one open), and a
  // click must keep meaning what it did when the state changes right after it.
  const [chosen, setChosen] = useState<ReadonlyMap<string, boolean>>(new Map());
  // The row a jump opened at (its key), marked until the next jump.
  const [target, setTarget] = useState<string | null>(null);
  // TanStack Virtual returns a mutable instance; these components are not memoized by the compiler.
  // eslint-disable-next-line react-hooks/incompatible-library
  const virtualizer = useVirtualizer({
    count: items.length,
    getScrollElement: () => scroller.current,
    estimateSize,
    getItemKey,
    // Rows added in front (an older page) keep the row on screen where it was.
    anchorTo: "end",
    // Following the bottom is the virtualizer's own: at the end (within 40 px), a row that grows
    // (the streaming message, a running card) moves the scroll offset by what it added, from its
    // measurement, and rows appended scroll to the new end; no layout read per frame. Off when the
    // window is not the session's end or was opened at a message.
    followOnAppend: jumpTo === null && attached,
    scrollEndThreshold: 40,
    overscan: 6,
    // Rows moved or resized (measured, streaming text growing, scrolling) are placed by writing
    // their transform and the list's height directly; React renders only when the range of rows
    // shown changes, not on every measurement.
    directDomUpdates: true,
  });

  const onToggle = useCallback((id: string, expanded: boolean) => setChosen((prev) => new Map(prev).set(id, !expanded)), []);

  // Opened at the end (and back at it after "Show latest"): start there. The virtualizer follows
  // from then on (followOnAppend and its end anchor, above).
  useEffect(() => {
    if (jumpTo === null && attached && atBottom.current && items.length > 0) virtualizer.scrollToEnd();
    // eslint-disable-next-line react-hooks/exhaustive-deps -- when the window becomes the session's end, or first has rows
  }, [attached, items.length === 0]);
  // A safety net, from the virtualizer's own figures (no layout read): if the view is following but
  // off the end all the same (the scroll to the end gave up while rows were still being measured
  // on a busy machine), go back to it.
  useEffect(() => {
    if (jumpTo !== null || !attached || !atBottom.current || items.length === 0 || virtualizer.isScrolling) return;
    const offEnd = virtualizer.getTotalSize() - (virtualizer.scrollOffset ?? 0) - (virtualizer.scrollRect?.height ?? 0);
    if (offEnd > 40) virtualizer.scrollToEnd();
  });

  useEffect(() => {
    if (jumpTo === null || items.length === 0) return;
    const index = jumpTargetIndex(model, items, jumpTo);
    const item = items[index];
    atBottom.current = false;
    virtualizer.scrollToIndex(index, { align: "start" });
    setTarget(item?.key ?? null);
    // A hit in a card collapsed by default (read, grep, ...) opens it, so the match is in view.
    const card = item?.kind === "tool" ? model.tools.get(item.toolCallId) : undefined;
    if (card && !defaultExpanded(card)) setChosen((prev) => new Map(prev).set(card.toolCallId, true));
    // Measurements settle after the first render of the rows: scroll again once they have.
    const timer = setTimeout(() => virtualizer.scrollToIndex(index, { align: "start" }), 120);
    return () => clearTimeout(timer);
    // eslint-disable-next-line react-hooks/exhaustive-deps -- only when the target changes or the transcript first loads
  }, [jumpTo, items.length === 0]);

  // Rows added in front keep the one at the top edge in place: TanStack Virtual anchors the scroll
  // offset to it when the first key changes (anchorTo "end", below).
  const loadOlder = () => {
    if (paging && model.first > 0) void paging.loadOlder();
  };

  const onScroll = () => {
    const el = scroller.current;
    if (!el) return;
    if (el.scrollHeight - el.scrollTop - el.clientHeight < 40) atBottom.current = attached;
    // Up by the person (wheel, keys, scrollbar, touch) or by a long way; not a clamp when the view
    // grows or the content shrinks under it.
    else if (el.scrollTop < lastScrollTop.current && (performance.now() - lastInput.current < 1000 || lastScrollTop.current - el.scrollTop > el.clientHeight))
      atBottom.current = false;
    lastScrollTop.current = el.scrollTop;
    // Pages load once the person has left the bottom (not while the view settles there at open).
    if (!atBottom.current && el.scrollTop < PAGE_MARGIN) loadOlder();
    if (!attached && el.scrollHeight - el.scrollTop - el.clientHeight < PAGE_MARGIN) void paging?.loadNewer();
  };

  return (
    <div
      className="transcript"
      ref={scroller}
      data-first-position={model.first}
      data-total={model.total}
      onScroll={onScroll}
      onWheel={noteInput}
      onKeyDown={noteInput}
      onPointerDown={noteInput}
      onTouchStart={noteInput}
      role="log"
      aria-label="Transcript"
      aria-live="off"
      tabIndex={0}
    >
      <div className="transcript-inner" ref={virtualizer.containerRef}>
        {virtualizer.getVirtualItems().map((row) => {
          const item = items[row.index]!;
          const summarized = item.position < compaction.firstKeptIndex && item.kind !== "custom";
          const card = item.kind === "tool" ? model.tools.get(item.toolCallId) : undefined;
          return (
            <div
              key={row.key}
              data-index={row.index}
              ref={virtualizer.measureElement}
              className={`transcript-row${target === item.key ? " jump-target" : ""}${summarized ? " summarized" : ""}`}
              data-jump-target={target === item.key ? "" : undefined}
              title={summarized ? "Summarized: not sent to the model while the summary is in force" : undefined}
            >
              <Row
                item={item}
                card={card}
                cards={item.kind === "timeline" ? timelineCards(model, item.toolCallIds) : undefined}
                sessionId={sessionId}
                expandedChoice={card ? chosen.get(card.toolCallId) : undefined}
                onToggle={onToggle}
                actions={actions}
                compaction={compaction}
                running={running}
                awaitingSince={card ? awaitingApproval.get(card.toolCallId) : undefined}
                canRetry={item.kind === "assistant" && item.position === retryPosition}
                turn={item.kind === "assistant" ? files?.byPosition.get(item.position) : undefined}
                files={files}
              />
            </div>
          );
        })}
      </div>
      {!attached && paging && (
        <button
          className="small show-latest"
          onClick={() => {
            atBottom.current = true;
            paging.showLatest();
          }}
        >
          Show latest
        </button>
      )}
    </div>
  );
}

/** A timeline's cards; the same array while none of them changed, so its row can skip a render. */
const timelineCache = new WeakMap<readonly string[], ToolCardState[]>();
function timelineCards(model: SessionModel, ids: readonly string[]): ToolCardState[] {
  const cards = ids.map((id) => model.tools.get(id)).filter((c) => c !== undefined);
  const previous = timelineCache.get(ids);
  if (previous && previous.length === cards.length && previous.every((c, i) => c === cards[i])) return previous;
  timelineCache.set(ids, cards);
  return cards;
}

interface RowProps {
  item: TranscriptItem;
  /** The tool row's card. */
  card: ToolCardState | undefined;
  /** The timeline row's cards. */
  cards: ToolCardState[] | undefined;
  sessionId: number;
  /** The person's choice for the tool card (open or closed); undefined: its default. */
  expandedChoice: boolean | undefined;
  onToggle: (id: string, expanded: boolean) => void;
  actions: RowActions;
  compaction: CompactionState;
  running: boolean;
  /** When the tool row's call was asked about, while it waits for permission. */
  awaitingSince: number | undefined;
  canRetry: boolean;
  /** The assistant row's turn, when it changed files (from the checkpoints). */
  turn?: TurnChanges;
  files?: FilesContext;
}

const Row = memo(function Row({ item, card, cards, sessionId, expandedChoice, onToggle, actions, compaction, running, awaitingSince, canRetry, turn, files }: RowProps) {
  switch (item.kind) {
    case "user":
      return <UserMessageView message={item.message} position={item.position} actions={actions} />;
    case "assistant":
      return (
        <>
          <AssistantMessageView message={item.message} position={item.position} streaming={item.streaming} thinking={item.thinking} actions={actions} canRetry={canRetry} />
          {turn && files && <TurnFiles sessionId={sessionId} turn={turn} name={files.name} maxFileBytes={files.maxFileBytes} />}
        </>
      );
    case "custom":
      if (item.message.customType === COMPACTION)
        return <CompactionEntry message={item.message} position={item.position} status={compaction.statusOf.get(item.position)} running={running} actions={actions} />;
      if (item.message.customType === COMPACTION_UNDO) return <CompactionUndoNote message={item.message} position={item.position} />;
      return <CustomMessageView message={item.message} position={item.position} actions={actions} />;
    case "tool": {
      if (!card) return null;
      return <ToolCard card={card} sessionId={sessionId} expanded={expandedChoice ?? defaultExpanded(card)} onToggle={onToggle} awaitingSince={awaitingSince} />;
    }
    case "timeline":
      return cards ? <Timeline cards={cards} /> : null;
  }
});
