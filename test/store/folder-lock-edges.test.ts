// The data folder lock (app/main/store/folder-lock.ts) on its rarer paths: a refused attempt
// leaves no descriptor open, a lock file that cannot be opened or set aside, one that stays
// damaged (no endless retry), and how a holder's description is read and trusted.
import fs from "node:fs";
import path from "node:path";
import { afterEach, describe, expect, it, vi } from "vitest";
import { acquireFolderLock, FolderLockedError, HOLDER_FILE, LOCK_FILE, readHolder } from "../../app/main/store/folder-lock.ts";
import { itWhen, needsLinux } from "../support/requirements.ts";
import { tempDir } from "./helpers.ts";

const dirs: string[] = [];
const fresh = () => {
  const dir = tempDir();
  dirs.push(dir);
  return dir;
};
afterEach(() => {
  vi.restoreAllMocks();
  for (const dir of dirs.splice(0)) fs.rmSync(dir, { recursive: true, force: true });
});

/** The error `act` throws (fails the test when it throws nothing). */
function thrownBy(act: () => unknown): Error {
  try {
    act();
  } catch (error) {
    return error as Error;
  }
  throw new Error("expected a throw");
}

/** How many descriptors this process has open on `file` (Linux: /proc/self/fd). */
function descriptorsOn(file: string): number {
  return fs.readdirSync("/proc/self/fd").filter((fd) => {
    try {
      return fs.readlinkSync(path.join("/proc/self/fd", fd)) === file;
    } catch {
      return false; // closed since the listing
    }
  }).length;
}

const writeHolderFile = (dir: string, holder: object) => fs.writeFileSync(path.join(dir, HOLDER_FILE), JSON.stringify(holder));

describe("taking the data folder lock", () => {
  itWhen(needsLinux(), "a refused attempt closes the connection it opened", () => {
    const dir = fresh();
    const file = path.join(dir, LOCK_FILE);
    const lock = acquireFolderLock(dir, "the holder");
    try {
      // SQLite keeps a closed connection's descriptor for reuse while the process holds locks on
      // the file (closing it would drop them): one more after the first refusal, then no more.
      expect(() => acquireFolderLock(dir, "a latecomer")).toThrow(FolderLockedError);
      const afterOne = descriptorsOn(file);
      for (let i = 0; i < 4; i++) expect(() => acquireFolderLock(dir, "a latecomer")).toThrow(FolderLockedError);
      expect(descriptorsOn(file)).toBe(afterOne);
    } finally {
      lock.release();
    }
    expect(descriptorsOn(file)).toBe(0);
  });

  it("a lock file that cannot be opened (a folder in its place) is an error naming it", () => {
    const dir = fresh();
    fs.mkdirSync(path.join(dir, LOCK_FILE));
    const error = thrownBy(() => acquireFolderLock(dir, "the app"));
    expect(error.name).toBe("StoreError");
    expect(error.message).toContain(`opening the lock file ${path.join(dir, LOCK_FILE)}`);
  });

  it("a damaged lock file that cannot be set aside is an error naming it", () => {
    const dir = fresh();
    const file = path.join(dir, LOCK_FILE);
    fs.writeFileSync(file, "not a database ".repeat(100));
    vi.spyOn(fs, "renameSync").mockImplementation(() => {
      throw Object.assign(new Error("EACCES: permission denied, rename"), { code: "EACCES" });
    });
    const error = thrownBy(() => acquireFolderLock(dir, "the app"));
    expect(error).toMatchObject({ name: "StoreError", failure: "read-only" });
    expect(error.message).toContain(`setting aside the damaged lock file ${file}`);
  });

  it("sets a damaged lock file aside once: a fresh one found damaged too is an error, not another retry", () => {
    const dir = fresh();
    const file = path.join(dir, LOCK_FILE);
    fs.writeFileSync(file, "not a database ".repeat(100));
    const rename = fs.renameSync;
    let renames = 0;
    // Something keeps overwriting the lock file: the one created after setting it aside is damaged as well.
    vi.spyOn(fs, "renameSync").mockImplementation((from, to) => {
      renames++;
      rename(from, to);
      fs.writeFileSync(file, "not a database ".repeat(100));
    });
    const error = thrownBy(() => acquireFolderLock(dir, "the app"));
    expect(renames).toBe(1);
    expect(error).toMatchObject({ name: "StoreError", failure: "corrupt" });
    expect(error.message).toContain(`locking the data folder ${dir}`);
  });
});

describe("holding the lock", () => {
  itWhen(needsLinux(), "makes a lock file left readable by others private again", () => {
    const dir = fresh();
    const file = path.join(dir, LOCK_FILE);
    fs.writeFileSync(file, "", { mode: 0o644 });
    fs.chmodSync(file, 0o644);
    const lock = acquireFolderLock(dir, "the app");
    try {
      expect(fs.statSync(file).mode & 0o777).toBe(0o600);
    } finally {
      lock.release();
    }
  });

  it("releases once: a second release leaves the next holder's description alone", () => {
    const dir = fresh();
    const first = acquireFolderLock(dir, "the first");
    first.release();
    const second = acquireFolderLock(dir, "the second");
    try {
      first.release();
      expect(readHolder(dir, 1)).toMatchObject({ app: "the second" });
    } finally {
      second.release();
    }
  });
});

describe("reading the holder's description", () => {
  it("reads it as often as asked while it is missing, then gives up", () => {
    const dir = fresh();
    const read = vi.spyOn(fs, "readFileSync");
    expect(readHolder(dir, 3)).toBeUndefined();
    expect(read.mock.calls.filter(([file]) => file === path.join(dir, HOLDER_FILE))).toHaveLength(3);
  });

  it("trusts only a description with a number pid, a text app and a number since", () => {
    const dir = fresh();
    const valid = { pid: process.pid, app: "the app", hostname: "box", since: 5 };
    writeHolderFile(dir, valid);
    expect(readHolder(dir, 1)).toEqual(valid);
    for (const broken of [
      { ...valid, pid: String(process.pid) },
      { ...valid, app: 7 },
      { ...valid, since: "yesterday" },
    ]) {
      writeHolderFile(dir, broken);
      expect(readHolder(dir, 1)).toBeUndefined();
    }
  });

  it("names the host 'this machine' when the description has none", () => {
    const dir = fresh();
    writeHolderFile(dir, { pid: process.pid, app: "the app", since: 5 });
    expect(readHolder(dir, 1)).toEqual({ pid: process.pid, app: "the app", hostname: "this machine", since: 5 });
  });

  it("takes a holder another user runs (signalling it is not permitted) as alive, and a gone one as dead", () => {
    const dir = fresh();
    writeHolderFile(dir, { pid: 4242, app: "someone else's app", hostname: "box", since: 5 });
    const answer = { code: "EPERM" };
    vi.spyOn(process, "kill").mockImplementation(() => {
      throw Object.assign(new Error(answer.code), answer);
    });
    expect(readHolder(dir, 1)).toMatchObject({ pid: 4242 });
    answer.code = "ESRCH";
    expect(readHolder(dir, 1)).toBeUndefined();
  });
});
