// The composer: multi-line; Enter sends, Shift+Enter starts a new line. While the agent runs a
// message goes either as steering (delivered after the current tools finish) or as a follow-up
// (queued until the agent would stop); the choice is visible and the queued messages are listed
// under their kind. Esc or Stop aborts the run. Images can be pasted or dropped, and go with a
// prompt, a steering message or a follow-up alike.
import { useRef, useState } from "react";
import type { ImageContent } from "../../../shared/agent-types";
import type { SessionState } from "../../../shared/ipc/contract";
import { getApi } from "../api/client";
import { ApiError, errorText, unwrap } from "../state/api-hooks";

type RunningMode = "steer" | "followUp";

function readImage(file: File): Promise<ImageContent> {
  return new Promise((resolve, reject) => {
    const reader = new FileReader();
    reader.onload = () => {
      const url = String(reader.result);
      resolve({ type: "image", mimeType: file.type, data: url.slice(url.indexOf(",") + 1) });
    };
    reader.onerror = () => reject(new Error(`Could not read ${file.name}`));
    reader.readAsDataURL(file);
  });
}

export function Composer({ sessionId, running, queued, disabled }: { sessionId: number; running: boolean; queued: SessionState["queued"] | undefined; disabled: boolean }) {
  const [text, setText] = useState("");
  const [images, setImages] = useState<ImageContent[]>([]);
  const [mode, setMode] = useState<RunningMode>("steer");
  const [error, setError] = useState<string | null>(null);
  const [sentNote, setSentNote] = useState<string | null>(null);
  const area = useRef<HTMLTextAreaElement>(null);
  const api = getApi();

  const abort = () => {
    unwrap(api.sessions.abort({ sessionId })).catch((e: unknown) => setError(errorText(e)));
  };

  // One send at a time: a prompt waits for the project's instruction files before it answers, and
  // a second Enter meanwhile would send the same message again (as steering).
  const sending = useRef(false);
  const send = async () => {
    const body = text.trim();
    if ((!body && images.length === 0) || sending.current) return;
    sending.current = true;
    setError(null);
    try {
      if (running) {
        // The API wants text with steering and follow-ups: an image alone gets a word to go with it.
        const params = { sessionId, text: body || (images.length === 1 ? "(image attached)" : "(images attached)"), ...(images.length ? { images } : {}) };
        try {
          if (mode === "steer") await unwrap(api.sessions.steer(params));
          else await unwrap(api.sessions.followUp(params));
          setSentNote(mode === "steer" ? "Sent as steering: the agent reads it after the current tools finish." : "Queued as a follow-up: sent when the agent would stop.");
        } catch (e) {
          // The run may have ended before this view heard of it: then the message is a prompt.
          if (!(e instanceof ApiError && e.code === "invalid-request") || (await unwrap(api.sessions.state({ sessionId }))).running) throw e;
          await unwrap(api.sessions.prompt({ sessionId, text: body, ...(images.length ? { images } : {}) }));
          setSentNote(null);
        }
      } else {
        const { delivery } = await unwrap(api.sessions.prompt({ sessionId, text: body, ...(images.length ? { images } : {}) }));
        setSentNote(delivery === "prompt" ? null : delivery === "steer" ? "The agent was already running: sent as steering." : "Queued as a follow-up.");
      }
      // What was typed while it was sent stays.
      setText((current) => (current === text ? "" : current));
      setImages([]);
    } catch (e) {
      setError(errorText(e));
    } finally {
      sending.current = false;
    }
  };

  const addFiles = async (files: Iterable<File>) => {
    const picked = [...files].filter((f) => f.type.startsWith("image/"));
    if (picked.length === 0) return;
    try {
      const read = await Promise.all(picked.map(readImage));
      setImages((prev) => [...prev, ...read].slice(0, 20));
    } catch (e) {
      setError(errorText(e));
    }
  };

  const steering = queued?.steering ?? [];
  const followUps = queued?.followUp ?? [];
  return (
    <div
      className="composer"
      onDragOver={(e) => e.preventDefault()}
      onDrop={(e) => {
        e.preventDefault();
        void addFiles(e.dataTransfer.files);
      }}
    >
      {(steering.length > 0 || followUps.length > 0) && (
        <div className="queued" aria-label="Queued messages">
          {steering.map((m, i) => (
            <div key={`s${i}`}>
              <span className="tag">Steering</span>
              {m}
            </div>
          ))}
          {followUps.map((m, i) => (
            <div key={`f${i}`}>
              <span className="tag">Follow-up</span>
              {m}
            </div>
          ))}
        </div>
      )}
      {images.length > 0 && (
        <div className="attachments">
          {images.map((img, i) => (
            <button key={i} onClick={() => setImages(images.filter((_, j) => j !== i))} aria-label={`Remove image ${i + 1}`} title="Remove">
              <img src={`data:${img.mimeType};base64,${img.data}`} alt={`Attachment ${i + 1}`} />
            </button>
          ))}
        </div>
      )}
      <textarea
        ref={area}
        aria-label="Message to the agent"
        data-composer=""
        autoFocus
        placeholder={
          running
            ? mode === "steer"
              ? "Steer the agent (delivered after the current tools)…"
              : "Queue a follow-up…"
            : "Ask Lathe to do something…  (Enter sends, Shift+Enter for a new line)"
        }
        value={text}
        rows={Math.min(10, Math.max(2, text.split("\n").length))}
        disabled={disabled}
        onChange={(e) => setText(e.target.value)}
        onPaste={(e) => {
          if (e.clipboardData.files.length > 0) {
            e.preventDefault();
            void addFiles(e.clipboardData.files);
          }
        }}
        onKeyDown={(e) => {
          if (e.key === "Enter" && !e.shiftKey && !e.nativeEvent.isComposing) {
            e.preventDefault();
            void send();
          } else if (e.key === "Escape" && running) {
            e.preventDefault();
            abort();
          }
        }}
      />
      <div className="composer-row">
        {running ? (
          <fieldset style={{ border: "none", margin: 0, padding: 0, display: "flex", gap: 10 }} aria-label="While the agent runs, send as">
            <label style={{ flexDirection: "row", alignItems: "center", gap: 4 }}>
              <input type="radio" name={`mode-${sessionId}`} checked={mode === "steer"} onChange={() => setMode("steer")} /> Steer (after current tools)
            </label>
            <label style={{ flexDirection: "row", alignItems: "center", gap: 4 }}>
              <input type="radio" name={`mode-${sessionId}`} checked={mode === "followUp"} onChange={() => setMode("followUp")} /> Follow-up (when done)
            </label>
          </fieldset>
        ) : (
          <span className="muted">Paste or drop images to attach them.</span>
        )}
        {running && <span className="muted">Images can be pasted or dropped here too.</span>}
        <span className="spacer" />
        {/* Notes about steering and follow-ups matter only while the run they joined lasts. */}
        {sentNote && running && (
          <span className="muted" role="status">
            {sentNote}
          </span>
        )}
        {error && (
          <span className="error-text" role="alert">
            {error}
          </span>
        )}
        {running && (
          <button className="danger" onClick={abort} title="Stop the agent (Esc)">
            Stop <kbd>Esc</kbd>
          </button>
        )}
        <button className="primary" onClick={() => void send()} disabled={disabled || (!text.trim() && images.length === 0)}>
          {running ? (mode === "steer" ? "Steer" : "Queue") : "Send"}
        </button>
      </div>
    </div>
  );
}
