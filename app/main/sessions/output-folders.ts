// The folders where bash saves full outputs: one per session, `<root>/<session id>/`, inside the
// app's data folder. A session's folder is deleted when the session is removed for good (after the
// undo period of a delete), and at start every folder whose session no longer exists is deleted (a
// crash between the two, or a database restored from a backup). Deletion runs off the main thread
// (fs.promises) and never throws: a folder that cannot be deleted is left for the next sweep.
import { readdir, rm } from "node:fs/promises";
import path from "node:path";

export function outputFolderFor(root: string, sessionId: number): string {
  return path.join(root, String(sessionId));
}

/** Deletes the folders of sessions that no longer exist; returns how many. */
export async function sweepOutputFolders(root: string, sessionExists: (id: number) => boolean): Promise<number> {
  let names: string[];
  try {
    names = await readdir(root);
  } catch {
    return 0;
  }
  let removed = 0;
  for (const name of names) {
    if (!/^[1-9]\d{0,15}$/.test(name) || sessionExists(Number(name))) continue;
    await rm(path.join(root, name), { recursive: true, force: true }).then(
      () => removed++,
      () => undefined,
    );
  }
  return removed;
}
