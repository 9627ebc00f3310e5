// Sniffs what a file is from its first bytes: one of the image types models accept, binary, or
// text. Pure functions over a Buffer; never throws.

import type { ImageMime } from "../../shared/tool-details.ts";

export type { ImageMime };

export function detectImage(head: Buffer): ImageMime | undefined {
  if (head.length >= 8 && head.subarray(0, 8).equals(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]))) {
    return "image/png";
  }
  if (head.length >= 3 && head[0] === 0xff && head[1] === 0xd8 && head[2] === 0xff) return "image/jpeg";
  const ascii = head.subarray(0, 12).toString("latin1");
  if (ascii.startsWith("GIF87a") || ascii.startsWith("GIF89a")) return "image/gif";
  if (ascii.startsWith("RIFF") && ascii.slice(8, 12) === "WEBP") return "image/webp";
  return undefined;
}

/**
 * A file is binary when its head holds a NUL byte or is mostly not valid UTF-8 text. UTF-16 files
 * (with a BOM) are binary here too: the tools read and write UTF-8 only.
 */
export function looksBinary(head: Buffer): boolean {
  if (head.length === 0) return false;
  if (head.includes(0)) return true;
  let suspicious = 0;
  for (const byte of head) {
    if (byte < 0x09 || (byte > 0x0d && byte < 0x20 && byte !== 0x1b) || byte === 0x7f) suspicious++;
  }
  if (suspicious / head.length > 0.1) return true;
  // A cut at the end of the head may split a character: check validity on a clean boundary.
  let end = head.length;
  while (end > 0 && end > head.length - 4 && (head[end - 1]! & 0xc0) === 0x80) end--;
  if (end > 0 && head[end - 1]! >= 0xc0) end--;
  const text = head.subarray(0, end).toString("utf8");
  const replacements = text.split("\uFFFD").length - 1;
  return replacements > 0 && replacements / Math.max(1, text.length) > 0.05;
}

export function describeBinary(head: Buffer): string {
  const magic: [string, number[]][] = [
    ["a PDF document", [0x25, 0x50, 0x44, 0x46]],
    ["a ZIP archive", [0x50, 0x4b, 0x03, 0x04]],
    ["a gzip archive", [0x1f, 0x8b]],
    ["an ELF executable", [0x7f, 0x45, 0x4c, 0x46]],
    ["a SQLite database", [0x53, 0x51, 0x4c, 0x69, 0x74, 0x65]],
  ];
  for (const [name, bytes] of magic) {
    if (bytes.every((b, i) => head[i] === b)) return name;
  }
  return "binary data";
}
