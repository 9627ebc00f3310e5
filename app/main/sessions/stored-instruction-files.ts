// The instruction files (AGENTS.md, CLAUDE.md) a stored session's state lists, by project folder,
// as last read off the event loop (system-prompt.ts). The router refreshes them before it opens a
// session or answers its state; a live session lists its own. A file system that does not answer
// leaves the list as it was (a prompt in that session reports the error). Never throws.
import { loadProjectInstructionsOffThread } from "./system-prompt.ts";

export class StoredInstructionFiles {
  private readonly byFolder = new Map<string, string[]>();

  /** The files as last read for `folder` ([] before the first read). */
  of(folder: string): string[] {
    return this.byFolder.get(folder) ?? [];
  }

  async refresh(folder: string): Promise<void> {
    try {
      this.byFolder.set(
        folder,
        (await loadProjectInstructionsOffThread(folder)).map((f) => f.path),
      );
    } catch {
      // Shown as last read.
    }
  }
}
