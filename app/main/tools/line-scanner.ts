// Reads a text file line by line in 64 KB chunks, so a huge file or a single enormous line never
// has to fit in memory: each line is handed over cut to `maxLineChars`, with its full length.
// Line endings (LF or CRLF) are removed; a leading BOM is dropped. Reads from an already opened
// handle (the caller checked the file's type, see file-guard.ts) from its start up to `endAt`
// (the size it had when opened: a file that keeps growing is not followed), and stops between
// chunks once `signal` aborts. Rejects on I/O errors and abort only.
import type { FileHandle } from "node:fs/promises";
import { StringDecoder } from "node:string_decoder";

export interface ScannedLine {
  /** 1-based line number. */
  number: number;
  /** The line, cut to maxLineChars characters. */
  text: string;
  /** The line's full length in characters. */
  length: number;
}

/** Calls `onLine` for each line until it returns false or the file ends. */
export async function scanLines(
  handle: FileHandle,
  maxLineChars: number,
  onLine: (line: ScannedLine) => boolean,
  options: { signal?: AbortSignal; endAt?: number } = {},
): Promise<void> {
  const endAt = options.endAt ?? Number.POSITIVE_INFINITY;
  const decoder = new StringDecoder("utf8");
  const buffer = Buffer.alloc(64 * 1024);
  let current = "";
  let length = 0;
  let number = 1;
  let first = true;
  const emit = (): boolean => {
    const text = current.endsWith("\r") && length <= maxLineChars ? current.slice(0, -1) : current;
    const keepGoing = onLine({ number, text, length: current.endsWith("\r") ? length - 1 : length });
    number++;
    current = "";
    length = 0;
    return keepGoing;
  };
  const append = (piece: string) => {
    length += piece.length;
    if (current.length < maxLineChars) current += piece.slice(0, maxLineChars - current.length);
    else if (piece.endsWith("\r")) current = current.slice(0, maxLineChars) + "\r";
  };
  for (let position = 0; ;) {
    if (options.signal?.aborted) throw new Error("Read aborted.");
    const want = Math.min(buffer.length, endAt - position);
    const { bytesRead } = want > 0 ? await handle.read(buffer, 0, want, position) : { bytesRead: 0 };
    position += bytesRead;
    let text = bytesRead === 0 ? decoder.end() : decoder.write(buffer.subarray(0, bytesRead));
    if (first && text.length > 0) {
      if (text.startsWith("\uFEFF")) text = text.slice(1);
      first = false;
    }
    let start = 0;
    for (let nl = text.indexOf("\n"); nl !== -1; nl = text.indexOf("\n", start)) {
      append(text.slice(start, nl));
      start = nl + 1;
      if (!emit()) return;
    }
    append(text.slice(start));
    if (bytesRead === 0) {
      if (length > 0) emit();
      return;
    }
  }
}
