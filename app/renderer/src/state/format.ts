// Small formatting helpers for the session view: one-line summaries of tool arguments, elapsed
// times, token counts, costs (one format everywhere), counted nouns and relative dates. Pure; never throw.

function str(value: unknown): string | undefined {
  return typeof value === "string" ? value : undefined;
}

/** One line saying what a call does: the command, the path, the pattern. */
export function summarizeArgs(toolName: string, args: Record<string, unknown>): string {
  const firstLine = (s: string) => {
    const line = s.split("\n", 1)[0] ?? "";
    return s.includes("\n") ? `${line} …` : line;
  };
  switch (toolName) {
    case "bash":
      return firstLine(str(args.command) ?? "");
    case "read": {
      const path = str(args.path) ?? "";
      const offset = typeof args.offset === "number" ? args.offset : undefined;
      const limit = typeof args.limit === "number" ? args.limit : undefined;
      if (offset === undefined && limit === undefined) return path;
      const from = offset ?? 1;
      return limit === undefined ? `${path}:${from}-` : `${path}:${from}-${from + limit - 1}`;
    }
    case "edit": {
      const edits = Array.isArray(args.edits) ? args.edits.length : 0;
      return `${str(args.path) ?? ""}${edits > 1 ? ` (${edits} edits)` : ""}`;
    }
    case "write":
      return str(args.path) ?? "";
    case "grep":
    case "find":
      return `${str(args.pattern) ?? ""}${str(args.path) ? ` in ${str(args.path)}` : ""}`;
    case "ls":
      return str(args.path) ?? ".";
    default: {
      const json = JSON.stringify(args);
      return json === "{}" ? "" : firstLine(json.length > 200 ? `${json.slice(0, 200)}…` : json);
    }
  }
}

/** "0.4 s", "12 s", "3 m 05 s". */
export function formatElapsed(ms: number): string {
  if (!Number.isFinite(ms) || ms < 0) return "";
  if (ms < 10_000) return `${(ms / 1000).toFixed(1)} s`;
  const seconds = Math.floor(ms / 1000);
  if (seconds < 60) return `${seconds} s`;
  const minutes = Math.floor(seconds / 60);
  return `${minutes} m ${String(seconds % 60).padStart(2, "0")} s`;
}

/** "950", "12.3k", "1.2M". */
export function formatTokens(n: number): string {
  if (!Number.isFinite(n)) return "0";
  if (n < 1000) return String(Math.round(n));
  if (n < 1_000_000) return `${(n / 1000).toFixed(n < 10_000 ? 1 : 0)}k`;
  return `${(n / 1_000_000).toFixed(1)}M`;
}

/** Costs one way everywhere: "$0.00", "<$0.01", "$0.42", "$12.30". */
export function formatCost(usd: number): string {
  if (!Number.isFinite(usd) || usd <= 0) return "$0.00";
  if (usd < 0.005) return "<$0.01";
  return `$${usd.toFixed(2)}`;
}

/** "1 model", "3 models", "0 models". */
export function plural(n: number, one: string, many = `${one}s`): string {
  return `${n.toLocaleString("en-US")} ${n === 1 ? one : many}`;
}

/** "just now", "5 min ago", "3 h ago", "yesterday", or a date. */
export function formatWhen(timestamp: number, now = Date.now()): string {
  const diff = now - timestamp;
  if (diff < 60_000) return "just now";
  if (diff < 3_600_000) return `${Math.floor(diff / 60_000)} min ago`;
  if (diff < 86_400_000) return `${Math.floor(diff / 3_600_000)} h ago`;
  if (diff < 2 * 86_400_000) return "yesterday";
  return new Date(timestamp).toLocaleDateString(undefined, { year: "numeric", month: "short", day: "numeric" });
}

/** The plain text of a message's content (string or blocks). */
export function textOf(content: string | readonly { type: string; text?: string }[]): string {
  if (typeof content === "string") return content;
  return content
    .filter((block) => block.type === "text")
    .map((block) => block.text ?? "")
    .join("\n");
}
