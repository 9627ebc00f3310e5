// Keeps the data folder private to the person: transcripts, settings, rules and the audit log are
// nobody else's business on a shared computer. The folder is created 0700 and Lathe's own files in
// it are 0600; at every start, a folder or file that is looser (an older Lathe left 0755 and 0644)
// is tightened and listed, so the caller can say so. Lathe's own files: lathe.db and lathe.lock and
// every file named after them (-wal, -shm, -journal, backups, damaged copies, the lock's holder
// description) and window-state.json; nothing else in the
// folder is touched. Windows has no such modes (the folder sits in the person's own profile): the
// folder is only created there. Throws only when the folder cannot be created; a file that cannot
// be tightened is listed as such.
import fs from "node:fs";
import path from "node:path";

export const PRIVATE_FOLDER_MODE = 0o700;
export const PRIVATE_FILE_MODE = 0o600;
const OWN_FILE = /^(lathe\.(db|lock)([-.].*)?|window-state\.json)$/;

export interface PrivacyReport {
  /** What was readable by others and now is not, e.g. "the folder (was 755)", "lathe.db (was 644)". */
  tightened: string[];
  /** What could not be tightened, with why. */
  failed: string[];
}

const octal = (mode: number) => (mode & 0o777).toString(8);

function tighten(target: string, label: string, mode: number, report: PrivacyReport): void {
  const loose = mode & 0o077;
  if (!loose) return;
  try {
    fs.chmodSync(target, mode & 0o700);
    report.tightened.push(`${label} (was ${octal(mode)})`);
  } catch (error) {
    report.failed.push(`${label} (${(error as NodeJS.ErrnoException).code ?? (error as Error).message})`);
  }
}

/** Creates the folder (0700) if needed, then tightens it and Lathe's files in it. */
export function makeDataFolderPrivate(dataDir: string, platform: NodeJS.Platform = process.platform): PrivacyReport {
  fs.mkdirSync(dataDir, { recursive: true, mode: PRIVATE_FOLDER_MODE });
  const report: PrivacyReport = { tightened: [], failed: [] };
  if (platform === "win32") return report;
  tighten(dataDir, "the folder", fs.statSync(dataDir).mode | 0o700, report);
  for (const name of fs.readdirSync(dataDir)) {
    if (!OWN_FILE.test(name)) continue;
    const file = path.join(dataDir, name);
    try {
      // lstat: a symbolic link is not followed, so nothing outside the folder is changed.
      const stat = fs.lstatSync(file);
      if (stat.isFile()) tighten(file, name, stat.mode | 0o600, report);
    } catch {
      // Gone meanwhile (a WAL checkpointed away): nothing to tighten.
    }
  }
  return report;
}

/** The notice for a report, or null when nothing was loose. */
export function privacyNotice(dataDir: string, report: PrivacyReport): string | null {
  const parts: string[] = [];
  if (report.tightened.length > 0) {
    parts.push(`Other users of this computer could read your Lathe data in ${dataDir}: ${report.tightened.join(", ")}. It is now readable by you only.`);
  }
  if (report.failed.length > 0) {
    parts.push(`Lathe could not make these private in ${dataDir}: ${report.failed.join(", ")}; check who owns them.`);
  }
  return parts.length > 0 ? parts.join(" ") : null;
}

/** Creates an empty file readable by its owner only, unless it exists. */
export function createPrivateFile(file: string): void {
  try {
    fs.closeSync(fs.openSync(file, "wx", PRIVATE_FILE_MODE));
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
  }
}
