// A bash call's output in a real terminal (xterm.js): colours, cursor movement and progress bars
// render as in a terminal. Live chunks are written as they arrive, never re-written; a card that
// leaves the virtualized transcript and comes back takes its terminal back, with what it showed
// (terminal-cache.ts), so it is neither opened nor replayed again. A finished call of a reopened session
// replays its stored terminal log (colours included; head and tail when it was long), fetched when
// the view mounts; without one, the result's text is shown.
// Size: the terminal shows exactly as many rows as its output has lines (one line takes one row),
// up to MAX_ROWS, so the last line is never cut, and the box takes the terminal's height. A
// finished call's rows are set on the terminal itself; a running one keeps MAX_ROWS rows (resizing
// xterm per new line costs a style recalculation of the page). Either way the terminal's element
// is sized to the rows shown and contained (CSS containment), so xterm's own layout work (new
// rows, character measures) stays inside it. A longer finished output shows its first lines, a bar saying how
// many are hidden with "Show all", and its end (where the error that explains a failure is); "Show
// all" gives a taller terminal that scrolls. While the command runs, the view follows its end.
// Cost: the columns follow the box's width, measured (computed styles, a forced layout) only when
// that width changed, not on every new line; new chunks are written in one write per update.
// Input: keystrokes reach the command only while it runs; the input line (an answer plus Enter)
// shows only while the command waits for input, with Interrupt beside it.
import { useEffect, useRef, useState } from "react";
import { flushSync } from "react-dom";
import { FitAddon } from "@xterm/addon-fit";
import { Terminal } from "@xterm/xterm";
import "@xterm/xterm/css/xterm.css";
import { getApi } from "../api/client";
import { errorText, unwrap } from "../state/api-hooks";
import "./session-content.css";
import { acquireTerminal, peekTerminal, releaseTerminal, type CachedTerminal, type WrittenState } from "./terminal-cache";
import { holdFinalBreak } from "./terminal-text";
import { skipIdleSelectionRedraws } from "./xterm-selection-redraw";
import { shareWidthMeasures } from "./xterm-width-cache";
import { terminalKeyPolicy, type TerminalKeys } from "../shell/keyboard";

/** Rows shown before an output counts as long. */
export const MAX_ROWS = 16;
/** Rows of an expanded long output (it scrolls beyond). */
export const EXPANDED_ROWS = 48;
/** First lines shown above the end of a long finished output. */
const HEAD_LINES = 3;

export interface TerminalViewProps {
  sessionId: number;
  toolCallId: string;
  chunks: readonly string[];
  chunkCount: number;
  /** Text to show when there are no live chunks (a stored session's result). */
  fallbackText: string;
  /** A stored terminal log exists for this call: fetch and replay it instead of the fallback. */
  storedOutput?: boolean;
  running: boolean;
  waitingForInput: boolean;
}

/**
 * Sizes the terminal's element to its first `rows` rows and contains it (`contain: strict`, class
 * "sized"): what xterm.js changes inside (rows re-created, characters measured, each measure a
 * forced layout) is laid out within it, not with the transcript around it. Reads no layout: the
 * row height is the one xterm's renderer sets on each of its row elements (an inline style; the
 * screen's own height may lag behind a resize while the terminal is out of view). Until that is
 * known the element keeps its natural height, uncontained.
 */
function sizeRows(terminal: Terminal, rows: number): void {
  const element = terminal.element;
  if (!element) return;
  const row = element.querySelector<HTMLElement>(".xterm-rows > div");
  const rowHeight = row ? Number.parseFloat(row.style.height) : Number.NaN;
  const height = rowHeight > 0 ? `${rows * rowHeight}px` : "";
  if (element.style.height !== height) element.style.height = height;
  element.classList.toggle("sized", height !== "");
}

/** The border-box width of the last terminal box the ResizeObserver reported (see fitColumns). */
let lastBoxWidth: number | undefined;

/** What the fit add-on leaves for a scroll bar when the terminal has a scrollback. */
const SCROLLBAR_WIDTH = 14;

/**
 * The columns the fit add-on would propose for a box `boxWidth` wide (its border box: the add-on
 * reads the box's computed width, which under `box-sizing: border-box` is that), without reading
 * any layout: the terminal's own element has no padding (session-content.css), and the character
 * width is the one xterm.js measured. Undefined until xterm.js has measured a character.
 */
function columnsFor(terminal: Terminal, boxWidth: number): number | undefined {
  const core = (terminal as unknown as { _core?: { _renderService?: { dimensions?: { css?: { cell?: { width?: number } } } } } })._core;
  const cell = core?._renderService?.dimensions?.css?.cell?.width ?? 0;
  if (!(cell > 0) || !Number.isFinite(boxWidth)) return undefined;
  const scrollbar = terminal.options.scrollback === 0 ? 0 : SCROLLBAR_WIDTH;
  return Math.max(2, Math.floor((Math.max(0, Math.trunc(boxWidth)) - scrollbar) / cell));
}

/** Lines of output in the terminal's buffer (a final newline does not count as a line). */
function contentLines(terminal: Terminal): number {
  const buffer = terminal.buffer.active;
  return Math.max(1, buffer.baseY + buffer.cursorY + (buffer.cursorX > 0 ? 1 : 0));
}

export function TerminalView({ sessionId, toolCallId, chunks, chunkCount, fallbackText, storedOutput = false, running, waitingForInput }: TerminalViewProps) {
  const host = useRef<HTMLDivElement>(null);
  const term = useRef<Terminal | null>(null);
  // What was written, and the final line break held back (terminal-text.ts).
  const cacheKey = `${sessionId}:${toolCallId}`;
  const written = useRef<WrittenState>({ chunks: null, count: 0, fallback: false, held: "" });
  const cached = useRef<CachedTerminal | null>(null);
  const runningRef = useRef(running);
  // Keys reach the command only while it runs and waits for input; Tab and Esc always leave.
  const keys = useRef<TerminalKeys | null>(null);
  const [answer, setAnswer] = useState("");
  const [error, setError] = useState<string | null>(null);
  const [lines, setLines] = useState(() => {
    const kept = peekTerminal(cacheKey, chunks);
    return kept ? contentLines(kept.terminal) : 1;
  });
  const [expanded, setExpanded] = useState(false);
  const expandedRef = useRef(expanded);
  const [head, setHead] = useState<string[]>([]);
  // The stored log once fetched (null while it loads or when there is none).
  const [stored, setStored] = useState<string | null>(null);

  const long = lines > MAX_ROWS && !running;
  const rows = expanded ? Math.min(lines, EXPANDED_ROWS) : long ? MAX_ROWS - HEAD_LINES - 1 : Math.min(lines, MAX_ROWS);
  // While the command runs the terminal keeps MAX_ROWS rows and its element is cut to the rows
  // shown (sizeRows): a resize per new line would rewrite xterm's style sheet (a style
  // recalculation of the whole page) and redraw every row. The output starts at the top row, so
  // the cut hides only empty rows; once it has MAX_ROWS lines nothing is cut. A finished call gets
  // its own rows.
  const terminalRows = running && !expanded ? MAX_ROWS : rows;
  const shownRows = useRef(rows);

  useEffect(() => {
    // A kept terminal (terminal-cache.ts) already shows the stored log.
    if (!storedOutput || peekTerminal(cacheKey, chunks)?.written.fallback) return;
    let cancelled = false;
    getApi()
      .tools.output({ sessionId, toolCallId })
      .then(
        (r) => !cancelled && setStored(r.ok ? r.data.text : ""),
        () => !cancelled && setStored(""),
      );
    return () => {
      cancelled = true;
    };
    // eslint-disable-next-line react-hooks/exhaustive-deps -- the card's chunk list only tells whether a kept terminal is this card's
  }, [cacheKey, sessionId, toolCallId, storedOutput]);

  const waitingRef = useRef(waitingForInput);
  useEffect(() => {
    runningRef.current = running;
    waitingRef.current = waitingForInput;
    keys.current?.update(running, waitingForInput);
  }, [running, waitingForInput]);

  useEffect(() => {
    // A card that comes back into the transcript takes its terminal back (terminal-cache.ts).
    const { entry, reused } = acquireTerminal(cacheKey, chunks, () => {
      const made = new Terminal({
        // Commands run with the pty's output processing off (app/main/tools/pty-command.ts): lines
        // end in "\n", which starts the next line at its left edge here, as a terminal would.
        convertEol: true,
        disableStdin: !runningRef.current,
        fontSize: 13,
        fontFamily: 'ui-monospace, "DejaVu Sans Mono", Menlo, monospace',
        scrollback: 5000,
        rows: 1,
        theme: { background: "#111214" },
        screenReaderMode: false,
      });
      const fit = new FitAddon();
      made.loadAddon(fit);
      made.open(host.current!);
      skipIdleSelectionRedraws(made);
      shareWidthMeasures(made);
      return { terminal: made, fit };
    });
    const { terminal, fit } = entry;
    if (reused && terminal.element) host.current!.appendChild(terminal.element);
    const input = terminal.onData((data) => {
      // Refused input (the command has not read what waits) is said in the answer form, not dropped.
      if (runningRef.current)
        unwrap(getApi().tools.input({ sessionId, toolCallId, data })).then(
          () => setError(null),
          (e: unknown) => setError(errorText(e)),
        );
    });
    // Only the columns follow the box, and only when its width changed (the box's height changes
    // with the rows shown). Given the box's width (from the ResizeObserver), no layout is read;
    // else the fit add-on reads computed styles, which forces a layout.
    const fitColumns = (boxWidth?: number) => {
      const cols = boxWidth === undefined ? fit.proposeDimensions()?.cols : (columnsFor(terminal, boxWidth) ?? fit.proposeDimensions()?.cols);
      if (!cols || cols === terminal.cols) return;
      terminal.resize(cols, terminal.rows);
      // The output re-wraps, and xterm's viewport settles on its next frame, which can move the
      // view: place it again then (an expanded output at its start, any other at its end).
      requestAnimationFrame(() => {
        if (term.current !== terminal) return;
        if (expandedRef.current) terminal.scrollToTop();
        else terminal.scrollToBottom();
      });
    };
    // Before the first output is written, so that it wraps at the box's width: the width the last
    // terminal's box had (cards share the transcript's width; the observer below corrects it
    // before the first paint if this box differs), so a new card reads no layout.
    if (!reused) fitColumns(lastBoxWidth);
    let width = -1;
    const resize = new ResizeObserver((entries) => {
      const last = entries.at(-1);
      const next = last?.contentRect.width ?? -1;
      if (next === width) return;
      // A kept terminal already has its columns for the width it had: measure only on a change.
      if (width === -1 && reused && next === entry.width) {
        width = next;
        return;
      }
      width = next;
      entry.width = next;
      const boxWidth = last?.borderBoxSize?.[0]?.inlineSize;
      if (boxWidth !== undefined && boxWidth > 0) lastBoxWidth = boxWidth;
      fitColumns(boxWidth);
    });
    resize.observe(host.current!);
    // The line count follows the output once per frame, committed in the frame's callback like
    // the session view (use-session.ts): set from xterm's parse task, it was rendered by React's
    // scheduler as a task between frames, whose DOM changes forced a layout in the next frame's
    // scroll handlers.
    let linesFrame: number | null = null;
    const grow = terminal.onWriteParsed(() => {
      linesFrame ??= requestAnimationFrame(() => {
        linesFrame = null;
        flushSync(() => setLines(contentLines(terminal)));
      });
    });
    // A change of columns re-wraps the output: its line count may change.
    const rewrap = terminal.onResize(() => setLines(contentLines(terminal)));
    // xterm re-renders its rows when the character size changes (a font loaded): size the element again.
    const rendered = terminal.onRender(() => sizeRows(terminal, shownRows.current));
    term.current = terminal;
    keys.current = terminalKeyPolicy(terminal);
    keys.current.update(runningRef.current, waitingRef.current);
    written.current = entry.written;
    cached.current = entry;
    if (reused) {
      setLines(contentLines(terminal));
      terminal.refresh(0, terminal.rows - 1);
    }
    return () => {
      keys.current?.dispose();
      keys.current = null;
      resize.disconnect();
      input.dispose();
      grow.dispose();
      if (linesFrame !== null) cancelAnimationFrame(linesFrame);
      rewrap.dispose();
      rendered.dispose();
      term.current = null;
      cached.current = null;
      releaseTerminal(cacheKey, entry);
    };
    // eslint-disable-next-line react-hooks/exhaustive-deps -- a new chunk list is written by the write effect (it resets the terminal), not a new terminal
  }, [cacheKey, sessionId, toolCallId]);

  useEffect(() => {
    const terminal = term.current;
    if (!terminal) return;
    const resized = terminalRows !== terminal.rows;
    if (resized) terminal.resize(terminal.cols, terminalRows);
    shownRows.current = rows;
    sizeRows(terminal, rows);
    if (!expanded) terminal.scrollToBottom();
    if (!resized) return;
    // xterm's viewport settles a resize on its next frame, which can move the view: place it again then.
    const frame = requestAnimationFrame(() => {
      if (term.current === terminal && !expanded) terminal.scrollToBottom();
    });
    return () => cancelAnimationFrame(frame);
  }, [rows, terminalRows, lines, expanded]);

  useEffect(() => {
    expandedRef.current = expanded;
    const terminal = term.current;
    if (!expanded || !terminal) return;
    terminal.scrollToTop();
    const frame = requestAnimationFrame(() => {
      if (term.current === terminal) terminal.scrollToTop();
    });
    return () => cancelAnimationFrame(frame);
  }, [expanded]);

  // The first lines of a long finished output, shown above its end.
  useEffect(() => {
    const terminal = term.current;
    if (!terminal || !long) return;
    const buffer = terminal.buffer.active;
    setHead(Array.from({ length: HEAD_LINES }, (_, i) => buffer.getLine(i)?.translateToString(true) ?? ""));
  }, [long, lines]);

  useEffect(() => {
    const terminal = term.current;
    if (!terminal) return;
    const w = written.current;
    if (cached.current) cached.current.owner = chunks;
    const write = (text: string) => {
      const next = holdFinalBreak(w.held, text);
      w.held = next.held;
      if (next.write) terminal.write(next.write);
    };
    if (chunkCount > 0) {
      if (w.chunks !== chunks || w.fallback || w.count > chunkCount) {
        if (w.count > 0 || w.fallback) terminal.reset();
        w.count = 0;
        w.chunks = chunks;
        w.fallback = false;
        w.held = "";
      }
      // One write for everything new (xterm parses each write as a task of its own).
      if (chunkCount > w.count) write(chunks.slice(w.count, chunkCount).join(""));
      w.count = chunkCount;
    } else if (!w.fallback && storedOutput && stored) {
      write(stored);
      w.fallback = true;
    } else if (!w.fallback && fallbackText && (!storedOutput || stored === "")) {
      write(fallbackText.replace(/\r?\n/g, "\r\n"));
      w.fallback = true;
    }
  }, [chunks, chunkCount, fallbackText, storedOutput, stored]);

  const send = (data: string) => {
    setError(null);
    unwrap(getApi().tools.input({ sessionId, toolCallId, data })).catch((e: unknown) => setError(errorText(e)));
  };
  const hidden = lines - HEAD_LINES - rows;

  return (
    <div className="term" data-lines={lines} data-rows={rows}>
      {long && !expanded && (
        <>
          <pre className="term-head" aria-label="Start of the output">
            {head.join("\n")}
          </pre>
          <button type="button" className="term-more" onClick={() => setExpanded(true)} aria-label={`Show all ${lines} lines of the output`}>
            ⋯ {hidden > 0 ? `${hidden.toLocaleString("en-US")} lines hidden` : "more"} · Show all {lines.toLocaleString("en-US")} lines
          </button>
        </>
      )}
      <div className="term-box" ref={host} role="log" aria-label="Command output" />
      {expanded && (
        <button type="button" className="term-more" onClick={() => setExpanded(false)}>
          Show less
        </button>
      )}
      {running && waitingForInput && (
        <form
          className="terminal-tools"
          onSubmit={(e) => {
            e.preventDefault();
            send(`${answer}\r`);
            setAnswer("");
          }}
        >
          <span className="waiting">Waiting for input</span>
          <input aria-label="Input for the command" placeholder="Type an answer and press Enter" value={answer} onChange={(e) => setAnswer(e.target.value)} autoFocus />
          <button type="submit">Send</button>
          <button type="button" className="danger" onClick={() => unwrap(getApi().tools.interrupt({ sessionId, toolCallId })).catch((e: unknown) => setError(errorText(e)))}>
            Interrupt
          </button>
          {error && <span className="error-text">{error}</span>}
        </form>
      )}
    </div>
  );
}
