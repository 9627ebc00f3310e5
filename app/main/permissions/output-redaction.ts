// Redaction of a tool's output, for the permissions service's afterToolCall: secrets are removed
// from every text block of the content and from every string of the details (nested up to 7
// levels; a `redactions` entry is the tool's own count and is kept as is), before the output
// reaches the model or the disk. When anything was found, a note saying what was removed is added
// to the content and the counts to the details (`redactions`). Bash output is already redacted as
// it streams: the counts the tool reports (`details.redactions`) are merged in. Details often
// repeat what the content shows, so each kind is counted where it was seen most, not summed.
// Returns undefined when nothing was found (the output stays as it is). Never throws.
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
  const details = redactDeep(result.details, scanner, adder(inDetails));
  const found: Record<string, number> = { ...inDetails };
  for (const [k, n] of Object.entries(inContent)) found[k] = Math.max(n, found[k] ?? 0);
  // What a tool redacted itself as its output streamed (bash).
  const atSource = (result.details as { redactions?: unknown } | null | undefined)?.redactions;
  if (atSource && typeof atSource === "object") {
    for (const [k, n] of Object.entries(atSource)) if (typeof n === "number") found[k] = Math.max(n, found[k] ?? 0);
  }
  if (Object.keys(found).length === 0) return undefined;
  const note = `\n[Lathe redacted ${describeRedactions(found)} from this output.]`;
  return {
    content: [...(content as AfterToolCallResult["content"] & object), { type: "text", text: note }],
    details: details && typeof details === "object" ? { ...details, redactions: found } : details,
  };
}

function redactDeep(value: unknown, scanner: SecretScanner, add: (found: Record<string, number>) => void, depth = 0): unknown {
  if (typeof value === "string") {
    const r = scanner.redact(value);
    add(r.found);
    return r.text;
  }
  if (depth > 6 || value === null || typeof value !== "object") return value;
  if (Array.isArray(value)) return value.map((v) => redactDeep(v, scanner, add, depth + 1));
  return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, k === "redactions" ? v : redactDeep(v, scanner, add, depth + 1)]));
}
