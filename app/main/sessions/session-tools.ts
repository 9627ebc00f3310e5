// The port through which tools from outside the coding tools (MCP servers, with their built-in
// tool_search) reach sessions. The sessions layer knows only this interface; app-services plugs
// the MCP service in. Contract: nothing here throws; `externalTools` answers at once (servers
// still starting are represented by stand-ins), and `onChange` fires when what it would answer
// may have changed.
import type { AnyAgentTool } from "../loop/index.ts";

export interface SessionToolScope {
  sessionId: number;
  projectId: number;
  projectDir: string;
}

export interface SessionToolSource {
  /** Names every new session of the project starts with besides the coding tools (stored with the session). */
  baseToolNames(projectId: number): Promise<string[]>;
  /** Built-in tools of the source, listed in the system prompt like the coding tools. */
  builtinTools(scope: SessionToolScope): AnyAgentTool[];
  /**
   * Every tool the session may activate now, and a stand-in for each of `names` (the session's
   * base and added names) that no server offers at the moment.
   */
  externalTools(scope: SessionToolScope, names: readonly string[]): AnyAgentTool[];
  onChange(listener: () => void): () => void;
}
