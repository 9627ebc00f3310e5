// A session for the checkpoint benches: session 1 of project 1 in `projectDir`, whose transcript
// is the messages the bench pushes.
import type { SessionSource } from "../../app/main/checkpoints/checkpoint-service.ts";
import type { AgentMessage } from "../../app/shared/agent-types.ts";

export class BenchSession implements SessionSource {
  readonly messages: AgentMessage[] = [];
  readonly #projectDir: string;

  constructor(projectDir: string) {
    this.#projectDir = projectDir;
  }

  place() {
    return { projectId: 1, projectDir: this.#projectDir, lineage: { sessionId: 1, parents: [] } };
  }

  transcript() {
    return { messages: this.messages, ...this.place() };
  }

  messageAt(_sessionId: number, position: number) {
    return this.messages[position];
  }
}
