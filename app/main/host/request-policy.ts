// Who may talk to the headless host, decided from a request's peer address and headers alone.
// Pure string work on the raw header values: never throws, whatever a request carries.
//   - the peer must be a loopback address (the host only listens there; this is a second lock);
//   - the Host header must name a loopback host (a DNS-rebinding page sends its own name);
//   - an Origin, when present, must be exactly the origin the request was addressed to:
//     `http://` + the Host header (scheme, host and port). A page from another port of 127.0.0.1
//     has another origin and is refused. The WebSocket upgrade and anything but GET/HEAD must
//     carry one; browsers always send it there;
//   - a subresource load started by a page of another origin (Sec-Fetch-Site same-site or
//     cross-site, not a navigation) is refused too, so no other page can even read our assets.
import type { IncomingHttpHeaders } from "node:http";

export interface Refusal {
  status: 400 | 403;
  reason: string;
}

export function isLoopback(address: string | undefined): boolean {
  if (!address) return false;
  const a = address.startsWith("::ffff:") ? address.slice(7) : address;
  return a === "::1" || a === "localhost" || /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(a);
}

/** The Host header's host name, without brackets or port; null when it is not a plain authority. */
export function hostNameOf(hostHeader: string | undefined): string | null {
  if (typeof hostHeader !== "string") return null;
  const match = /^(\[[0-9a-fA-F:.]{2,45}\]|[A-Za-z0-9.-]{1,253})(?::(\d{1,5}))?$/.exec(hostHeader);
  if (!match) return null;
  if (match[2] !== undefined && Number(match[2]) > 65535) return null;
  return match[1]!.replace(/^\[|\]$/g, "").toLowerCase();
}

/** The only origin the host answers: the one the browser addressed, `http://` + Host. */
export function ownOrigin(headers: IncomingHttpHeaders): string | null {
  return hostNameOf(headers.host) === null ? null : `http://${headers.host!.toLowerCase()}`;
}

function single(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? undefined : value;
}

/**
 * Null when the request may go on; otherwise the status and a reason for the person (or script)
 * that sent it. `originRequired`: the WebSocket upgrade and any state-changing method.
 */
export function refuseRequest(remoteAddress: string | undefined, headers: IncomingHttpHeaders, originRequired: boolean): Refusal | null {
  if (!isLoopback(remoteAddress)) return { status: 403, reason: "Only this computer may connect to the Lathe host." };
  const hostName = hostNameOf(headers.host);
  if (hostName === null) return { status: 400, reason: "The Host header is missing or malformed." };
  if (!isLoopback(hostName)) {
    return { status: 403, reason: "The Host header names another host: open the Lathe host at 127.0.0.1 (or localhost)." };
  }
  const origin = single(headers.origin);
  if (headers.origin !== undefined && origin === undefined) return { status: 400, reason: "More than one Origin header." };
  if (origin === undefined) {
    if (originRequired) return { status: 403, reason: "This request must come from the Lathe page itself (no Origin header)." };
  } else if (origin.toLowerCase() !== ownOrigin(headers)) {
    return { status: 403, reason: `Requests from ${origin.slice(0, 200)} are refused: only the Lathe page at ${ownOrigin(headers)} may use this host.` };
  }
  const site = single(headers["sec-fetch-site"]);
  const mode = single(headers["sec-fetch-mode"]);
  if ((site === "cross-site" || site === "same-site") && mode !== "navigate") {
    return { status: 403, reason: "Pages of other origins may not load from the Lathe host." };
  }
  return null;
}
