// Reads a text file line by line in 64 KB chunks, so a huge file or a single enormous line never
// has to fit in memory: each line is handed over cut to `maxLineChars`, with its full length.
// Line endings (LF or CRLF) are removed; a leading BOM is dropped. Rejects on I/O errors only.
import { open } from "node:fs/promises";
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
  filePath: string,
  maxLineChars: number,
  onLine: (line: ScannedLine) => boolean,
): Promise<void> {
  const handle = await open(filePath, "r");
  try {
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
    for (;;) {
      const { bytesRead } = await handle.read(buffer, 0, buffer.length, null);
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
  } finally {
    await handle.close();
  }
}
