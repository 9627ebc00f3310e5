// The store's errors: every failure the app must explain to the user has its own class and a
// message that says what happened and what was (not) lost. toStoreError maps SQLite's codes.

export type StoreFailure = "disk-full" | "read-only" | "unavailable" | "corrupt" | "not-found" | "invalid" | "io" | "in-use";

export class StoreError extends Error {
  readonly failure: StoreFailure;
  constructor(failure: StoreFailure, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = "StoreError";
    this.failure = failure;
  }
}

/** The database was written by a newer Lathe. The file is left exactly as it was. */
export class NewerDatabaseError extends StoreError {
  readonly path: string;
  readonly fileVersion: number;
  readonly supportedVersion: number;
  constructor(path: string, fileVersion: number, supportedVersion: number) {
    super(
      "invalid",
      `The session database ${path} was written by a newer version of Lathe (schema version ${fileVersion}; ` +
        `this version understands up to ${supportedVersion}). Update Lathe to open it; the file was not changed.`,
    );
    this.name = "NewerDatabaseError";
    this.path = path;
    this.fileVersion = fileVersion;
    this.supportedVersion = supportedVersion;
  }
}

function sqliteCode(err: unknown): string {
  const code = (err as { code?: unknown } | null)?.code;
  return typeof code === "string" ? code : "";
}

export function isCorruptionError(err: unknown): boolean {
  const code = sqliteCode(err);
  return code === "SQLITE_NOTADB" || code.startsWith("SQLITE_CORRUPT");
}

/**
 * Wraps a failure of `action` ("saving the message", "opening the database") in a StoreError
 * whose message names the cause in plain words. Store errors pass through unchanged.
 */
export function toStoreError(err: unknown, action: string): StoreError {
  if (err instanceof StoreError) return err;
  const code = sqliteCode(err);
  const detail = err instanceof Error ? err.message : String(err);
  if (code === "SQLITE_FULL" || code === "ENOSPC") return new StoreError("disk-full", `The disk is full: ${action} failed and nothing of it was written.`, { cause: err });
  if (code.startsWith("SQLITE_READONLY") || code === "EROFS" || code === "EACCES" || code === "EPERM")
    return new StoreError("read-only", `The data folder is read-only: ${action} failed and nothing of it was written (${detail}).`, {
      cause: err,
    });
  if (code.startsWith("SQLITE_CANTOPEN")) return new StoreError("unavailable", `The session database cannot be opened: ${action} failed (${detail}).`, { cause: err });
  if (isCorruptionError(err)) return new StoreError("corrupt", `The session database is damaged: ${action} failed (${detail}).`, { cause: err });
  if (code.startsWith("SQLITE_CONSTRAINT")) return new StoreError("invalid", `${action} failed: ${detail}`, { cause: err });
  if (code.startsWith("SQLITE_IOERR")) return new StoreError("io", `A disk error stopped ${action}; nothing of it was written (${detail}).`, { cause: err });
  return new StoreError("io", `${action} failed: ${detail}`, { cause: err });
}
