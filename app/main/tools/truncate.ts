// Bounds for everything a tool sends to the model: about 2,000 lines or 50 KB, whichever comes
// first. Pure functions over strings; byte counts are UTF-8 and cuts never split a character.

export const MAX_OUTPUT_LINES = 2000;
export const MAX_OUTPUT_BYTES = 50 * 1024;

export interface Bounds {
  maxLines: number;
  maxBytes: number;
}

export const DEFAULT_BOUNDS: Bounds = { maxLines: MAX_OUTPUT_LINES, maxBytes: MAX_OUTPUT_BYTES };

export interface Truncation {
  text: string;
  truncated: boolean;
  totalLines: number;
  totalBytes: number;
  keptLines: number;
  /** Set when a single line was longer than the byte bound and only a cut of it is kept. */
  partialLine: boolean;
}

export function byteLength(text: string): number {
  return Buffer.byteLength(text, "utf8");
}

/** The longest prefix of `text` that fits in `maxBytes` UTF-8 bytes, never splitting a character. */
export function cutToBytes(text: string, maxBytes: number): string {
  if (text.length * 3 <= maxBytes || byteLength(text) <= maxBytes) return text;
  const buf = Buffer.from(text.slice(0, maxBytes), "utf8");
  let end = Math.min(maxBytes, buf.length);
  while (end > 0 && (buf[end]! & 0xc0) === 0x80) end--;
  return buf.subarray(0, end).toString("utf8");
}

/** The longest suffix of `text` that fits in `maxBytes` UTF-8 bytes. */
export function cutToBytesFromEnd(text: string, maxBytes: number): string {
  if (byteLength(text) <= maxBytes) return text;
  const buf = Buffer.from(text.slice(-maxBytes), "utf8");
  let start = Math.max(0, buf.length - maxBytes);
  while (start < buf.length && (buf[start]! & 0xc0) === 0x80) start++;
  return buf.subarray(start).toString("utf8");
}

function splitLines(text: string): string[] {
  const lines = text.split("\n");
  if (lines.length > 1 && lines[lines.length - 1] === "") lines.pop();
  return lines;
}

/** Keeps the first lines within the bounds. */
export function truncateHead(text: string, bounds: Bounds = DEFAULT_BOUNDS): Truncation {
  return truncate(text, bounds, "head");
}

/** Keeps the last lines within the bounds. */
export function truncateTail(text: string, bounds: Bounds = DEFAULT_BOUNDS): Truncation {
  return truncate(text, bounds, "tail");
}

/** Keeps whole lines from one end while both bounds hold; a single line over the byte bound is cut. */
function truncate(text: string, bounds: Bounds, keep: "head" | "tail"): Truncation {
  const lines = splitLines(text);
  const totalBytes = byteLength(text);
  if (lines.length <= bounds.maxLines && totalBytes <= bounds.maxBytes) {
    return { text, truncated: false, totalLines: lines.length, totalBytes, keptLines: lines.length, partialLine: false };
  }
  const kept: string[] = [];
  let bytes = 0;
  let partialLine = false;
  for (let n = 0; n < lines.length && kept.length < bounds.maxLines; n++) {
    const line = lines[keep === "head" ? n : lines.length - 1 - n]!;
    const size = byteLength(line) + 1;
    if (bytes + size > bounds.maxBytes) {
      if (kept.length === 0) {
        kept.push(keep === "head" ? cutToBytes(line, bounds.maxBytes) : cutToBytesFromEnd(line, bounds.maxBytes));
        partialLine = true;
      }
      break;
    }
    kept.push(line);
    bytes += size;
  }
  if (keep === "tail") kept.reverse();
  return { text: kept.join("\n"), truncated: true, totalLines: lines.length, totalBytes, keptLines: kept.length, partialLine };
}

export function formatBytes(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`;
  if (bytes < 1024 * 1024) return `${(bytes / 1024).toFixed(1)} KB`;
  return `${(bytes / (1024 * 1024)).toFixed(1)} MB`;
}
