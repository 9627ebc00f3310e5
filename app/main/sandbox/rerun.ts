// "Run again outside the sandbox": finds the command of a bash call that ran in the sandbox, and
// words the request the agent is sent. The permission layer asks the user before the command runs
// outside (SandboxService.requestOutside marks it). Pure; never throws.
import type { AgentMessage } from "../../shared/agent-types.ts";
import type { BashResultDetails } from "../../shared/tool-details.ts";

export function sandboxedCommand(messages: readonly AgentMessage[], toolCallId: string): { command: string } | { error: string } {
  const result = messages.find((m) => m.role === "toolResult" && m.toolCallId === toolCallId);
  if (!result || result.role !== "toolResult") return { error: `There is no finished tool call ${toolCallId} in this session.` };
  if (result.toolName !== "bash") return { error: `Tool call ${toolCallId} is ${result.toolName}, not a command.` };
  const placement = (result.details as Partial<BashResultDetails> | undefined)?.sandbox?.placement;
  if (placement !== "sandbox" && placement !== "sandbox-network") return { error: "That command did not run in the sandbox: there is nothing to run outside it." };
  for (const m of messages) {
    if (m.role !== "assistant") continue;
    const call = m.content.find((c) => c.type === "toolCall" && c.id === toolCallId);
    if (call?.type === "toolCall" && typeof call.arguments.command === "string") return { command: call.arguments.command };
  }
  return { error: `The command of tool call ${toolCallId} is not in this session.` };
}

export function rerunRequestText(command: string): string {
  return `The sandbox blocked this command. Run it again, unchanged, so that it runs outside the sandbox (Lathe will ask me to confirm):\n\n${command}`;
}
