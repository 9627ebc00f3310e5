// Project paths as git gives them: raw bytes, relative to the project folder, '/'-separated. A
// file name may hold any byte but NUL and '/', so it may not be UTF-8 and may contain newlines.
// Everything the checkpoint store does with a path uses the bytes (Node's fs accepts a Buffer
// path); a person sees `displayPath` (invalid bytes as \xNN, control characters escaped), and the
// renderer names a file by `pathId` (base64url of the bytes), which `fromPathId` turns back.
// Pure functions; never throw except fromPathId on a malformed id (the caller reports it).
import { Buffer } from "node:buffer";

// Shared with the compute pool's checkpoint jobs (which may not import this folder).
export { splitNul } from "../workers/nul-list.ts";

export function joinNul(paths: readonly Buffer[]): Buffer {
  const parts: Buffer[] = [];
  const nul = Buffer.from([0]);
  for (const p of paths) parts.push(p, nul);
  return Buffer.concat(parts);
}

export function pathId(path: Buffer): string {
  return path.toString("base64url");
}

/** The path of a pathId; throws on anything that is not a safe relative project path. */
export function fromPathId(id: string): Buffer {
  if (!/^[A-Za-z0-9_-]{1,16384}$/.test(id)) throw new Error("Not a file id of this project.");
  const path = Buffer.from(id, "base64url");
  if (!isSafeRelative(path)) throw new Error("Not a file id of this project.");
  return path;
}

/** A relative path with no empty, '.', '..' or '.git' component, no NUL, not absolute. */
export function isSafeRelative(path: Buffer): boolean {
  if (path.length === 0 || path[0] === 0x2f || path.includes(0)) return false;
  let start = 0;
  while (start <= path.length) {
    let end = path.indexOf(0x2f, start);
    if (end === -1) end = path.length;
    const part = path.subarray(start, end);
    if (part.length === 0) return false;
    const text = part.toString("latin1");
    if (text === "." || text === ".." || text.toLowerCase() === ".git") return false;
    start = end + 1;
  }
  return true;
}

const decoder = new TextDecoder("utf-8", { fatal: true });

/** The path for a person: UTF-8 when it is, with \xNN for other bytes and control characters escaped. */
export function displayPath(path: Buffer): string {
  let text: string;
  try {
    text = decoder.decode(path);
  } catch {
    text = "";
    for (const byte of path) text += byte < 0x80 ? String.fromCharCode(byte) : `\\x${byte.toString(16).padStart(2, "0")}`;
  }
  // eslint-disable-next-line no-control-regex -- escaping control characters is the point
  return text.replace(/[\u0000-\u001f\u007f]/g, (c) => (c === "\n" ? "\\n" : c === "\t" ? "\\t" : `\\x${c.charCodeAt(0).toString(16).padStart(2, "0")}`));
}

/** Map key for a path (Buffers compare by identity). */
export function pathKey(path: Buffer): string {
  return path.toString("latin1");
}
