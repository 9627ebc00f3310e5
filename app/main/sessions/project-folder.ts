// Where a folder typed (the browser host's field) or picked (the app's dialog) for a project
// resolves to, and whether it is too broad to open without asking: the home folder, the root of
// the file system, or a folder holding the home folder would let the agent read and change
// everything in it. A relative path, or one starting with `~`, is taken from the home folder (not
// from wherever the host happened to be started). Pure apart from reading real paths (through `fs`:
// the app gives answers fetched off the event loop, see tools/fs-answers.ts); never throws.
import { isAbsolute, parse, resolve, sep } from "node:path";
import { hostSyncFileSystem, type SyncFileSystem } from "../tools/fs-answers.ts";

export type BroadFolder = "home" | "root" | "above-home";

export interface ResolvedFolder {
  /** The absolute folder, `..` and `.` resolved (links are kept as typed). */
  folder: string;
  /** Set when opening it needs a confirmation. */
  broad: BroadFolder | null;
  home: string;
}

export function resolveProjectFolder(input: string, home: string, fs: SyncFileSystem = hostSyncFileSystem): ResolvedFolder {
  const typed = input.trim();
  const folder =
    typed === "~" ? resolve(home) : typed.startsWith("~/") || typed.startsWith("~\\") ? resolve(home, typed.slice(2)) : isAbsolute(typed) ? resolve(typed) : resolve(home, typed);
  return { folder, broad: broadness(folder, home, fs), home };
}

/** Whether `folder` (absolute) is the root, the home folder or above it; links are followed to compare. */
export function broadness(folder: string, home: string, fs: SyncFileSystem = hostSyncFileSystem): BroadFolder | null {
  const realOrSelf = (path: string) => fs.realpath(path) ?? path;
  const real = realOrSelf(folder);
  const fold = (p: string) => (process.platform === "win32" || process.platform === "darwin" ? p.toLowerCase() : p);
  if (parse(real).root === real || parse(folder).root === folder) return "root";
  const homeReal = fold(realOrSelf(resolve(home)));
  const here = fold(real);
  if (here === homeReal) return "home";
  if (homeReal.startsWith(here.endsWith(sep) ? here : here + sep)) return "above-home";
  return null;
}

/** What the confirmation says about a broad folder. */
export function broadFolderWarning(broad: BroadFolder, folder: string): string {
  const what = broad === "home" ? `${folder} is your home folder` : broad === "root" ? `${folder} is the root of the file system` : `${folder} holds your home folder`;
  return `${what}: as a project, the agent could read and change everything in it. Open a project's own folder instead, or confirm that you mean it.`;
}
