// Message-anchored tool loading: a tool-result message's `addedToolNames` activate those tools
// from that message on. These pure functions rebuild the active set for any point of a stored
// transcript, so a replayed session sees exactly the tools the live one saw.
import type { AgentMessage } from "../../shared/agent-types.ts";

/** Names added by tool-result messages at indexes 0..index (inclusive), in order, without repeats. */
export function addedToolNamesThrough(messages: readonly AgentMessage[], index: number): string[] {
  const added = new Set<string>();
  const last = Math.min(index, messages.length - 1);
  for (let i = 0; i <= last; i++) {
    const m = messages[i];
    if (m?.role === "toolResult" && m.addedToolNames) for (const name of m.addedToolNames) added.add(name);
  }
  return [...added];
}

/** Active tool names after each message: base tools plus every name added at or before it. */
export function activeToolNamesByMessage(baseToolNames: readonly string[], messages: readonly AgentMessage[]): string[][] {
  const active = new Set(baseToolNames);
  return messages.map((m) => {
    if (m.role === "toolResult" && m.addedToolNames) for (const name of m.addedToolNames) active.add(name);
    return [...active];
  });
}
