// The bound on input waiting for a command that does not read it. What is typed into a running
// command's terminal (tools.input) goes to the pty at once; the pty takes a few KB while nothing
// reads, and the rest waits in Lathe's memory until the command reads. Without a bound, a client
// could keep Lathe's memory growing for as long as a command runs (each request answers at once).
// Contract: `refuseInputBeyondBound(pending, bytes)` throws CommandInputFull when taking `bytes`
// more would leave more than MAX_PENDING_INPUT_BYTES waiting, and then nothing of that input is
// taken (what was taken before still goes to the command, in order). A key (at most KEY_BYTES, such
// as Ctrl-C, Enter or an arrow) still fits in KEY_ROOM more: the bash tool's interrupt falls back to
// typing Ctrl-C, and a flood of pasted text must not turn that into a throw. node-pty's terminals
// get the same bound through `boundNodePtyInput`, which reads node-pty's own write queue.
import type * as pty from "node-pty";
import { ServiceError } from "../../shared/errors.ts";

/** Input that may wait, per command: far beyond anything typed or pasted into a terminal. */
export const MAX_PENDING_INPUT_BYTES = 1024 * 1024;
/** The longest key sequence (an arrow or a function key) that still fits in KEY_ROOM. */
const KEY_BYTES = 8;
const KEY_ROOM = 4096;

/** Input refused because the command has not read what it was given. */
export class CommandInputFull extends ServiceError {
  readonly pendingBytes: number;
  constructor(pendingBytes: number) {
    const kib = Math.ceil(pendingBytes / 1024).toLocaleString("en-US");
    super("unavailable", `The command is not reading its input: ${kib} KiB are waiting. Nothing more is taken until it reads some (or is interrupted).`);
    this.name = "CommandInputFull";
    this.pendingBytes = pendingBytes;
  }
}

/** Throws CommandInputFull when `bytes` more input would leave too much waiting (see the header). */
export function refuseInputBeyondBound(pendingBytes: number, bytes: number): void {
  const limit = bytes <= KEY_BYTES ? MAX_PENDING_INPUT_BYTES + KEY_ROOM : MAX_PENDING_INPUT_BYTES;
  if (pendingBytes + bytes > limit) throw new CommandInputFull(pendingBytes);
}

// node-pty 1.1's Unix terminal queues writes in `_writeStream._writeQueue` (its CustomWriteStream),
// retrying on EAGAIN until the command reads; the task being written stays first until it is done.
interface NodePtyInternals {
  _writeStream?: { _writeQueue?: unknown };
}

/** The bytes node-pty still holds for the command; undefined when its queue is not where 1.1 keeps it. */
export function nodePtyPendingBytes(term: pty.IPty): number | undefined {
  const queue = (term as unknown as NodePtyInternals)._writeStream?._writeQueue;
  if (!Array.isArray(queue)) return undefined;
  let bytes = 0;
  for (const task of queue as { buffer: Buffer; offset: number }[]) bytes += task.buffer.byteLength - task.offset;
  return bytes;
}

/**
 * Bounds a node-pty terminal's input like a native one's: its `write` throws CommandInputFull
 * beyond the bound. Where node-pty's queue cannot be read (another version, Windows), input is
 * not bounded, as before; a test pins the queue's place.
 */
export function boundNodePtyInput(term: pty.IPty): pty.IPty {
  const write = term.write.bind(term);
  term.write = (data: string | Buffer) => {
    const bytes = typeof data === "string" ? Buffer.byteLength(data, "utf8") : data.byteLength;
    // node-pty keeps one entry per write: past MAX_PENDING_WRITES (a flood of tiny writes) the
    // input is refused without walking them, so each write costs at most that many steps.
    const writes = nodePtyPendingWrites(term);
    if (writes !== undefined && writes >= MAX_PENDING_WRITES + (bytes <= KEY_BYTES ? KEY_WRITES : 0)) throw new CommandInputFull(nodePtyPendingBytes(term) ?? 0);
    const pending = nodePtyPendingBytes(term);
    if (pending !== undefined) refuseInputBeyondBound(pending, bytes);
    write(data);
  };
  return term;
}

/** Writes node-pty may hold for a command; a key still fits in KEY_WRITES more. */
const MAX_PENDING_WRITES = 4096;
const KEY_WRITES = 64;

function nodePtyPendingWrites(term: pty.IPty): number | undefined {
  const queue = (term as unknown as NodePtyInternals)._writeStream?._writeQueue;
  return Array.isArray(queue) ? queue.length : undefined;
}
