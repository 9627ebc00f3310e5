// What a permission dialog shows for a call to an MCP server's tool: the server and tool, what
// the tool says it does, its own hints (read-only, destructive: the server's claims, shown as
// such), and the arguments the model sent.
import type { McpCallSummary as Summary } from "../../../shared/ipc/mcp-schemas";

const MAX_ARGS_CHARS = 4_000;

export function McpCallSummary({ call, args }: { call: Summary; args: unknown }) {
  let json: string;
  try {
    json = JSON.stringify(args, null, 2) ?? "";
  } catch {
    json = "(arguments that cannot be shown)";
  }
  if (json.length > MAX_ARGS_CHARS) json = `${json.slice(0, MAX_ARGS_CHARS)}\n… (${json.length - MAX_ARGS_CHARS} more characters)`;
  const hints: string[] = [];
  if (call.annotations.readOnlyHint) hints.push("read-only");
  if (call.annotations.destructiveHint && !call.annotations.readOnlyHint) hints.push("destructive");
  if (call.annotations.idempotentHint) hints.push("idempotent");
  if (call.annotations.openWorldHint) hints.push("reaches outside systems");
  return (
    <div aria-label="MCP call">
      <div className="muted">
        Tool <code>{call.tool}</code> of the MCP server <strong>{call.server}</strong>
        {call.description ? `: ${call.description}` : ""}
      </div>
      {hints.length > 0 && (
        <div className={hints.includes("destructive") ? "notice error" : "notice"} aria-label="Server's hints">
          The server says this tool is {hints.join(", ")} (a claim by the server, not checked by Lathe).
        </div>
      )}
      <pre aria-label="Arguments">{json}</pre>
    </div>
  );
}
