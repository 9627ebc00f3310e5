// Serves the built renderer (public code: the page, scripts, styles, icons; no data and no token)
// from one folder. Every step that parses what a request sent is guarded: a request target that
// is not a path, a path that does not decode, a NUL byte or a way out of the folder is answered
// 400 or 404, never thrown. A path is served only in its one plain spelling (`//index.html`,
// `/./index.html` or `/%2Findex.html` are 404): with another, the page came without its
// Content-Security-Policy header, whose `frame-ancestors 'none'` is what keeps another local page
// from framing the app (a page on another port of 127.0.0.1 shares the tab's storage, token
// included). Every HTML answer carries that policy, and every answer `X-Frame-Options: DENY`.
// Must not throw.
import { createReadStream, statSync } from "node:fs";
import type { IncomingMessage, ServerResponse } from "node:http";
import { extname, join, normalize, posix, sep } from "node:path";
import { CONTENT_SECURITY_POLICY } from "../../shared/csp.ts";

const MIME: Record<string, string> = {
  ".html": "text/html; charset=utf-8",
  ".js": "text/javascript; charset=utf-8",
  ".css": "text/css; charset=utf-8",
  ".svg": "image/svg+xml",
  ".png": "image/png",
  ".woff2": "font/woff2",
  ".json": "application/json",
  ".map": "application/json",
};

/** Headers on every answer of the host, errors included. */
export const COMMON_HEADERS: Readonly<Record<string, string>> = {
  "referrer-policy": "no-referrer",
  "x-content-type-options": "nosniff",
  "cross-origin-resource-policy": "same-origin",
  "cross-origin-opener-policy": "same-origin",
  "x-frame-options": "DENY",
};

export function answer(res: ServerResponse, status: number, text: string, extra: Record<string, string> = {}): void {
  if (res.headersSent) {
    res.destroy();
    return;
  }
  res.writeHead(status, { ...COMMON_HEADERS, "content-type": "text/plain; charset=utf-8", "cache-control": "no-store", ...extra }).end(`${text}\n`);
}

/** The decoded path relative to the folder ("index.html" for "/"), or why it cannot be one. */
export function requestedFile(target: string | undefined): { ok: true; relative: string } | { ok: false; reason: string } {
  if (typeof target !== "string" || !target.startsWith("/")) return { ok: false, reason: "The request target must be a path starting with /." };
  const rawPath = target.split(/[?#]/, 1)[0]!;
  let decoded: string;
  try {
    decoded = decodeURIComponent(rawPath);
  } catch {
    return { ok: false, reason: "The request path is not valid percent-encoded UTF-8." };
  }
  if (decoded.includes("\0")) return { ok: false, reason: "The request path contains a NUL byte." };
  return { ok: true, relative: decoded === "/" ? "index.html" : decoded.slice(1) };
}

/** Whether a decoded relative path is in its one plain spelling: no empty, `.` or `..` segment, no backslash. */
function isPlainPath(relative: string): boolean {
  return (
    relative !== "" &&
    !relative.includes("\\") &&
    posix.normalize(relative) === relative &&
    !relative.startsWith("/") &&
    !relative.endsWith("/") &&
    !relative.split("/").includes("..")
  );
}

export function serveStatic(root: string, req: IncomingMessage, res: ServerResponse): void {
  const wanted = requestedFile(req.url);
  if (!wanted.ok) return answer(res, 400, wanted.reason);
  if (!isPlainPath(wanted.relative)) return answer(res, 404, "Not found.");
  const base = normalize(root);
  const file = normalize(join(base, wanted.relative));
  if (!file.startsWith(base + sep)) return answer(res, 404, "Not found.");
  let size: number;
  try {
    const stat = statSync(file);
    if (!stat.isFile()) throw new Error("not a file");
    size = stat.size;
  } catch {
    return answer(res, 404, `Not found: /${wanted.relative.slice(0, 200)}`);
  }
  // Decided by the file served, not by how the request spelled it.
  const page = extname(file) === ".html";
  const headers: Record<string, string | number> = {
    ...COMMON_HEADERS,
    "content-type": MIME[extname(file)] ?? "application/octet-stream",
    "content-length": size,
    "cache-control": page ? "no-store" : "no-cache",
  };
  if (page) headers["content-security-policy"] = CONTENT_SECURITY_POLICY;
  const stream = createReadStream(file);
  // The file may vanish or fail between stat and read: end this answer, never the process.
  stream.on("error", () => (res.headersSent ? res.destroy() : answer(res, 404, "Not found.")));
  stream.once("open", () => {
    res.writeHead(200, headers);
    if (req.method === "HEAD") {
      res.end();
      stream.destroy();
    } else stream.pipe(res);
  });
  res.on("close", () => stream.destroy());
}
