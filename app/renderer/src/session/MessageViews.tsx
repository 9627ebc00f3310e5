// The transcript's message rows: user messages with their images, assistant messages (Markdown
// text, thinking: open with a running "Thinking… 4 s" while it streams, collapsed to "Thought for
// 12 s" once it ends, unless the person opened or closed it; an unmistakable error when the
// response failed) and displayed
// custom notices (an unexpected stop shown as an error). Each row offers "Fork from here" (a new
// session through this message). Compaction entries have their own view (CompactionEntry).
import { memo, useState } from "react";
import { CHECKPOINT_REWIND } from "../../../shared/ipc/checkpoint-schemas";
import type { AssistantMessage, CustomMessage, ThinkingContent, UserMessage } from "../../../shared/agent-types";
import { formatElapsed } from "../state/format";
import type { ThinkingTime } from "../state/session-model";
import type { CompactionActions } from "./CompactionEntry";
import { Markdown } from "./Markdown";
import { useNow } from "./ToolCard";

export interface RowActions extends CompactionActions {
  onFork?: (position: number) => void;
  /** Opens the rewind preview for the files as they were before this message of yours. */
  onRewind?: (position: number) => void;
  /** Opens the preview of undoing a rewind. */
  onUndoRewind?: (rewindId: number) => void;
  /** Runs the last failed turn again (offered on the last answer when it failed or was stopped). */
  onRetry?: () => void;
}

function ForkButton({ position, actions }: { position: number; actions: RowActions }) {
  if (!actions.onFork) return null;
  return (
    <button className="link actions" onClick={() => actions.onFork?.(position)} aria-label={`Fork from here: a new session from message ${position + 1}`}>
      Fork from here
    </button>
  );
}

export const UserMessageView = memo(function UserMessageView({ message, position, actions }: { message: UserMessage; position: number; actions: RowActions }) {
  const blocks = typeof message.content === "string" ? [{ type: "text" as const, text: message.content }] : message.content;
  return (
    <div className="msg user" data-position={position} data-role="user">
      <ForkButton position={position} actions={actions} />
      {actions.onRewind && (
        <button className="link actions" onClick={() => actions.onRewind?.(position)} aria-label={`Rewind files to before message ${position + 1}`}>
          Rewind files to here
        </button>
      )}
      <div className="bubble" aria-label="You said">
        {blocks.map((block, i) =>
          block.type === "text" ? <span key={i}>{block.text}</span> : <img key={i} src={`data:${block.mimeType};base64,${block.data}`} alt="Attached image" />,
        )}
      </div>
    </div>
  );
});

export const AssistantMessageView = memo(function AssistantMessageView({
  message,
  position,
  streaming,
  thinking,
  actions,
  canRetry = false,
}: {
  message: AssistantMessage;
  position: number;
  streaming: boolean;
  /** When each thinking block streamed, by content index. */
  thinking?: readonly (ThinkingTime | undefined)[];
  actions: RowActions;
  /** This is the session's last answer, it failed or was stopped, and nothing runs. */
  canRetry?: boolean;
}) {
  const lastText = message.content.findLastIndex((b) => b.type === "text");
  return (
    <div className="msg assistant" data-position={position} data-role="assistant" aria-busy={streaming}>
      {message.content.map((block, i) => {
        if (block.type === "thinking") {
          if (block.redacted)
            return (
              <div key={i} className="thinking muted">
                Thinking (redacted by the provider)
              </div>
            );
          const live = streaming && (thinking?.[i] ? thinking[i]!.endedAt === null : i === message.content.length - 1);
          return <ThinkingBlock key={i} block={block} time={thinking?.[i]} live={live} />;
        }
        if (block.type === "text") {
          return (
            <div key={i} className={streaming && i === lastText ? "stream-caret" : undefined}>
              <Markdown text={block.text} />
            </div>
          );
        }
        return null;
      })}
      {streaming && message.content.length === 0 && <div className="muted stream-caret">Waiting for the model</div>}
      {message.stopReason === "error" && !streaming && (
        <div className="assistant-error" role="alert">
          The model's response failed: {message.errorMessage ?? "unknown error"}
          {message.contextOverflow ? " (the conversation is larger than the model's context window)" : ""}
          {canRetry && <RetryButton actions={actions} />}
        </div>
      )}
      {message.stopReason === "aborted" && !streaming && (
        <div className="assistant-error">
          {message.errorMessage?.startsWith("Stopped") ? message.errorMessage : `Stopped${message.errorMessage ? `: ${message.errorMessage}` : "."}`}
          {canRetry && <RetryButton actions={actions} />}
        </div>
      )}
      {message.stopReason === "length" && !streaming && <div className="notice">The response hit the model's output limit.</div>}
      {!streaming && <ForkButton position={position} actions={actions} />}
    </div>
  );
});

/** One thinking block: open while it streams, then collapsed, with its duration. */
function ThinkingBlock({ block, time, live }: { block: ThinkingContent; time: ThinkingTime | undefined; live: boolean }) {
  // null: follow the stream (open while live); true or false: the person's choice.
  const [chosen, setChosen] = useState<boolean | null>(null);
  const now = useNow(live && time !== undefined, 500);
  const open = chosen ?? live;
  const duration = time ? formatElapsed((time.endedAt ?? now) - time.startedAt) : null;
  const label = live ? `Thinking…${duration ? ` ${duration}` : ""}` : duration ? `Thought for ${duration}` : "Thinking";
  return (
    <details className={`thinking${live ? " live" : ""}`} open={open} data-live={live}>
      <summary
        onClick={(e) => {
          e.preventDefault();
          setChosen(!open);
        }}
      >
        {label}
      </summary>
      <div className="body">{block.thinking}</div>
    </details>
  );
}

function RetryButton({ actions }: { actions: RowActions }) {
  if (!actions.onRetry) return null;
  return (
    <button className="small retry-turn" onClick={() => actions.onRetry?.()} title="Ask the model again; the answer above stays in the transcript and is not sent">
      Retry
    </button>
  );
}

export function CustomMessageView({ message, position, actions }: { message: CustomMessage; position: number; actions?: RowActions }) {
  if (message.customType === CHECKPOINT_REWIND) {
    const rewindId = (message.details as { rewindId?: unknown } | undefined)?.rewindId;
    return (
      <div className="msg custom-msg rewind-note" data-position={position}>
        {message.content}{" "}
        {typeof rewindId === "number" && actions?.onUndoRewind && (
          <button className="link" onClick={() => actions.onUndoRewind?.(rewindId)}>
            Undo
          </button>
        )}
      </div>
    );
  }
  if (message.customType === "error") {
    return (
      <div className="msg" data-position={position}>
        <div className="assistant-error" role="alert">
          {message.content}
        </div>
      </div>
    );
  }
  return (
    <div className="msg custom-msg" data-position={position}>
      {message.content}
    </div>
  );
}
