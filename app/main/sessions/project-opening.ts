// Opening a folder as a project, with the file system asked off the event loop (tools/fs-answers.ts):
// where the typed folder resolves to, whether it is too broad to open without a confirmation
// (project-folder.ts), and whether it is a folder. A folder on a mount that stopped answering is
// refused with the file system's error rather than holding the app. Throws ServiceError only.
import { ServiceError } from "../../shared/errors.ts";
import { answeredOffThread, statOffThread } from "../tools/fs-answers.ts";
import { broadFolderWarning, resolveProjectFolder, type ResolvedFolder } from "./project-folder.ts";

/** Where a typed folder resolves to (relative paths and `~` from `home`). */
export async function resolveFolderOffThread(folder: string, home: string): Promise<ResolvedFolder> {
  try {
    return await answeredOffThread((fs) => resolveProjectFolder(folder, home, fs));
  } catch (error) {
    throw new ServiceError("unavailable", (error as Error).message);
  }
}

/** The absolute folder to open as a project; home, `/` and above need `confirmed`. */
export async function folderToOpen(folder: string, home: string, confirmed: boolean): Promise<string> {
  const { folder: path, broad } = await resolveFolderOffThread(folder, home);
  if (broad && !confirmed) throw new ServiceError("invalid", broadFolderWarning(broad, path));
  const stat = await statOffThread(path).catch((error: Error) => {
    throw new ServiceError("unavailable", error.message);
  });
  if (!stat) throw new ServiceError("not-found", `There is no folder at ${path}.`);
  if (!stat.isDirectory()) throw new ServiceError("invalid", `${path} is a file, not a folder.`);
  return path;
}
