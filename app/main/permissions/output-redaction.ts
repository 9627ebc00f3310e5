// Redaction of a tool's output, for the permissions service's afterToolCall: secrets are removed
// from every text block of the content and from every string of the details (in place down to 7
// levels; a `redactions` entry is the tool's own count and is kept as is), before the output
// reaches the model or the disk. A part of the details nested deeper is checked whole (its keys
// and strings, up to DEEP_CHECK_NODES values) and left out, replaced by a note, when it holds a
// secret or is too large to check: a secret never reaches the disk for being nested deep. When anything was found, a note saying what was removed is added
// to the content and the counts to the details (`redactions`). Bash output is already redacted as
// it streams: the counts the tool reports (`details.redactions`) are merged in. Details often
// repeat what the content shows, so each kind is counted where it was seen most, not summed.
// Returns undefined when nothing was found or left out (the output stays as it is). Never throws.
import type { AfterToolCallResult } from "../loop/index.ts";
import { describeRedactions, type SecretScanner } from "./redaction.ts";

/** What a tool returned, as afterToolCall sees it. */
export interface ToolOutput {
  content: { type: string; text?: string }[];
  details: unknown;
}

export function redactToolOutput(result: ToolOutput, scanner: SecretScanner): AfterToolCallResult | undefined {
  const inContent: Record<string, number> = {};
  const inDetails: Record<string, number> = {};
  const adder = (into: Record<string, number>) => (more: Record<string, number>) => {
    for (const [k, n] of Object.entries(more)) into[k] = (into[k] ?? 0) + n;
  };
  const content = result.content.map((block) => {
    if (block.type !== "text" || typeof block.text !== "string") return block;
    const r = scanner.redact(block.text);
    adder(inContent)(r.found);
    return { ...block, text: r.text };
  });
  const changes = { leftOut: 0 };
  const details = redactDeep(result.details, scanner, adder(inDetails), 0, changes);
  const found: Record<string, number> = { ...inDetails };
  for (const [k, n] of Object.entries(inContent)) found[k] = Math.max(n, found[k] ?? 0);
  // What a tool redacted itself as its output streamed (bash).
  const atSource = (result.details as { redactions?: unknown } | null | undefined)?.redactions;
  if (atSource && typeof atSource === "object") {
    for (const [k, n] of Object.entries(atSource)) if (typeof n === "number") found[k] = Math.max(n, found[k] ?? 0);
  }
  if (Object.keys(found).length === 0) return changes.leftOut > 0 ? { details } : undefined;
  const note = `\n[Lathe redacted ${describeRedactions(found)} from this output.]`;
  return {
    content: [...(content as AfterToolCallResult["content"] & object), { type: "text", text: note }],
    details: details && typeof details === "object" ? { ...details, redactions: found } : details,
  };
}

/** Values of a part nested deeper than the in-place walk that are checked at most (see the header). */
export const DEEP_CHECK_NODES = 10_000;
export const LEFT_OUT_SECRET = "[Left out by Lathe: nested too deep to redact in place, and it held a secret]";
export const LEFT_OUT_UNCHECKED = "[Left out by Lathe: nested too deep and too large to check for secrets]";

function redactDeep(value: unknown, scanner: SecretScanner, add: (found: Record<string, number>) => void, depth: number, changes: { leftOut: number }): unknown {
  if (typeof value === "string") {
    const r = scanner.redact(value);
    add(r.found);
    return r.text;
  }
  if (value === null || typeof value !== "object") return value;
  if (depth > 6) return checkWhole(value, scanner, add, changes);
  if (Array.isArray(value)) return value.map((v) => redactDeep(v, scanner, add, depth + 1, changes));
  return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, k === "redactions" ? v : redactDeep(v, scanner, add, depth + 1, changes)]));
}

/** A deep part kept as it is when none of its keys and strings holds a secret; else a note in its place. Walks without recursion. */
function checkWhole(root: object, scanner: SecretScanner, add: (found: Record<string, number>) => void, changes: { leftOut: number }): unknown {
  const stack: unknown[] = [root];
  const found: Record<string, number> = {};
  let nodes = 1;
  const scan = (text: string) => {
    for (const [k, n] of Object.entries(scanner.redact(text).found)) found[k] = (found[k] ?? 0) + n;
  };
  try {
    while (stack.length > 0) {
      const value = stack.pop();
      if (typeof value === "string") scan(value);
      else if (value !== null && typeof value === "object") {
        const keys = Object.keys(value);
        nodes += keys.length;
        if (nodes > DEEP_CHECK_NODES) throw new RangeError("too many values");
        for (const k of keys) {
          if (!Array.isArray(value)) scan(k);
          stack.push((value as Record<string, unknown>)[k]);
        }
      }
    }
  } catch {
    // Too large, or not plain data (a getter that throws).
    changes.leftOut++;
    return LEFT_OUT_UNCHECKED;
  }
  if (Object.keys(found).length === 0) return root;
  add(found);
  changes.leftOut++;
  return LEFT_OUT_SECRET;
}
