// What the secret scanner (redaction.ts) and the streaming redactor (secret-stream.ts) share: a
// found secret's span, replacing spans by markers, and one line of a private key's body. Pure.

export interface Redaction {
  text: string;
  /** Kinds of secrets removed, with counts. */
  found: Record<string, number>;
}

export interface SecretSpan {
  start: number;
  end: number;
  kind: string;
  /** A private key block that reaches the end of the text without its end line. */
  open?: boolean;
  /** A private key block cut at MAX_KEY_BLOCK: what follows may be more of it. */
  truncated?: boolean;
}

/** Where control characters are in a scanned text (see keyword-scan-wasm.ts isControlByte). */
export interface ControlPositions {
  first: number;
  last: number;
}

/** One line of a private key block's body (redaction.ts's KEY_BODY, line by line). */
export const KEY_BODY_LINE = /^(?:[ \t]*[A-Za-z0-9+/=]*[ \t]*|[A-Za-z-]{2,40}: .*)\r?$/;

/** Replaces the spans (sorted, disjoint) by markers, counting them. */
export function applySpans(text: string, spans: readonly SecretSpan[], from = 0, to = text.length, found: Record<string, number> = {}): Redaction {
  if (spans.length === 0) return { text: from === 0 && to === text.length ? text : text.slice(from, to), found };
  let out = "";
  let pos = from;
  for (const s of spans) {
    if (s.end <= from || s.start >= to) continue;
    out += text.slice(pos, Math.max(pos, s.start));
    out += `[REDACTED: ${s.kind}]`;
    found[s.kind] = (found[s.kind] ?? 0) + 1;
    pos = Math.min(Math.max(pos, s.end), to);
  }
  out += text.slice(pos, to);
  return { text: out, found };
}
