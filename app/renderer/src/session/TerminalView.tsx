// A bash call's output in a real terminal (xterm.js): colours, cursor movement and progress bars
// render as in a terminal. Live chunks are written as they arrive, never re-written; a card that
// remounts (virtualized transcript) replays its chunks. While the command runs, keystrokes typed
// in the terminal go to the command, and an input line sends a whole answer plus Enter. A finished
// call of a reopened session replays its stored terminal log (colours included; head and tail when
// it was long), fetched when the view mounts; without one, the result's text is shown.
import { useEffect, useRef, useState } from "react";
import { FitAddon } from "@xterm/addon-fit";
import { Terminal } from "@xterm/xterm";
import "@xterm/xterm/css/xterm.css";
import { getApi } from "../api/client";
import { errorText, unwrap } from "../state/api-hooks";

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

export function TerminalView({ sessionId, toolCallId, chunks, chunkCount, fallbackText, storedOutput = false, running, waitingForInput }: TerminalViewProps) {
  const host = useRef<HTMLDivElement>(null);
  const term = useRef<Terminal | null>(null);
  const written = useRef<{ chunks: readonly string[] | null; count: number; fallback: boolean }>({ chunks: null, count: 0, fallback: false });
  const runningRef = useRef(running);
  const [answer, setAnswer] = useState("");
  const [error, setError] = useState<string | null>(null);
  // The view grows with its content, from 3 to 16 rows, so short outputs stay compact.
  const [rows, setRows] = useState(3);
  // The stored log once fetched (null while it loads or when there is none).
  const [stored, setStored] = useState<string | null>(null);

  useEffect(() => {
    if (!storedOutput) return;
    let cancelled = false;
    getApi()
      .tools.output({ sessionId, toolCallId })
      .then((r) => !cancelled && setStored(r.ok ? r.data.text : ""), () => !cancelled && setStored(""));
    return () => {
      cancelled = true;
    };
  }, [sessionId, toolCallId, storedOutput]);

  useEffect(() => {
    runningRef.current = running;
  }, [running]);

  useEffect(() => {
    const terminal = new Terminal({
      // Commands run with the pty's output processing off (app/main/tools/pty-command.ts): lines
      // end in "\n", which starts the next line at its left edge here, as a terminal would.
      convertEol: true,
      disableStdin: false,
      fontSize: 12,
      fontFamily: 'ui-monospace, "DejaVu Sans Mono", Menlo, monospace',
      scrollback: 5000,
      theme: { background: "#111214" },
      screenReaderMode: false,
    });
    const fit = new FitAddon();
    terminal.loadAddon(fit);
    terminal.open(host.current!);
    fit.fit();
    const input = terminal.onData((data) => {
      if (runningRef.current) void getApi().tools.input({ sessionId, toolCallId, data });
    });
    const resize = new ResizeObserver(() => fit.fit());
    resize.observe(host.current!);
    const grow = terminal.onWriteParsed(() => {
      const buffer = terminal.buffer.active;
      setRows(Math.min(16, Math.max(3, buffer.baseY + buffer.cursorY + (buffer.cursorX > 0 ? 1 : 0))));
    });
    term.current = terminal;
    written.current = { chunks: null, count: 0, fallback: false };
    return () => {
      resize.disconnect();
      input.dispose();
      grow.dispose();
      terminal.dispose();
      term.current = null;
    };
  }, [sessionId, toolCallId]);

  useEffect(() => {
    const terminal = term.current;
    if (!terminal) return;
    const w = written.current;
    if (chunkCount > 0) {
      if (w.chunks !== chunks || w.fallback || w.count > chunkCount) {
        if (w.count > 0 || w.fallback) terminal.reset();
        w.count = 0;
        w.chunks = chunks;
        w.fallback = false;
      }
      for (let i = w.count; i < chunkCount; i++) terminal.write(chunks[i]!);
      w.count = chunkCount;
    } else if (!w.fallback && storedOutput && stored) {
      terminal.write(stored);
      w.fallback = true;
    } else if (!w.fallback && fallbackText && (!storedOutput || stored === "")) {
      terminal.write(fallbackText.replace(/\r?\n/g, "\r\n"));
      w.fallback = true;
    }
  }, [chunks, chunkCount, fallbackText, storedOutput, stored]);

  const send = (data: string) => {
    setError(null);
    unwrap(getApi().tools.input({ sessionId, toolCallId, data })).catch((e: unknown) => setError(errorText(e)));
  };

  return (
    <div>
      <div className="terminal" ref={host} role="log" aria-label="Command output" style={{ height: rows * 15 + 10 }} />
      {running && (
        <form
          className="terminal-tools"
          onSubmit={(e) => {
            e.preventDefault();
            send(`${answer}\r`);
            setAnswer("");
          }}
        >
          {waitingForInput && <span className="waiting">Waiting for input</span>}
          <input aria-label="Input for the command" placeholder="Type an answer and press Enter" value={answer} onChange={(e) => setAnswer(e.target.value)} autoFocus={waitingForInput} />
          <button type="submit">Send</button>
          <button
            type="button"
            className="danger"
            onClick={() => unwrap(getApi().tools.interrupt({ sessionId, toolCallId })).catch((e: unknown) => setError(errorText(e)))}
          >
            Interrupt
          </button>
          {error && <span className="error-text">{error}</span>}
        </form>
      )}
    </div>
  );
}
