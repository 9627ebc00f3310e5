// The data folder is private by default: created 0700 with Lathe's files 0600 (the database, its
// WAL and shared-memory files, backups, the lock and its journal, the checkpoints), tightened at start when an older Lathe left them readable
// by others, with a notice that reaches the window; other files in the folder are left alone. A
// zero-length database starts fresh, and says so.
import fs from "node:fs";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { describeWhen } from "../support/requirements.ts";
import { createAppServices } from "../../app/main/app-services.ts";
import { noSecretStore } from "../../app/main/settings/settings-service.ts";
import { openStore } from "../../app/main/store/index.ts";
import { makeDataFolderPrivate } from "../../app/main/store/private-folder.ts";
import { tempDir, user } from "./helpers.ts";

const dirs: string[] = [];
function scratch(): string {
  const dir = tempDir();
  dirs.push(dir);
  return dir;
}
afterEach(() => {
  for (const dir of dirs.splice(0)) fs.rmSync(dir, { recursive: true, force: true });
});
const modeOf = (file: string) => fs.statSync(file).mode & 0o777;

describeWhen(process.platform === "win32" ? "Windows has no Unix file modes" : null, "the data folder's modes", () => {
  it("creates the folder 0700 and the database, WAL and shared memory 0600, with no notice", () => {
    const dir = path.join(scratch(), "new", "lathe");
    const previous = process.umask(0o022);
    try {
      const { store, notices } = openStore({ dataDir: dir });
      const session = store.createSession({ projectId: store.openProject("/p").id });
      store.appendMessage(session.id, user("hello"));
      expect(notices).toEqual([]);
      expect(modeOf(dir)).toBe(0o700);
      for (const name of ["lathe.db", "lathe.db-wal", "lathe.db-shm"]) expect(modeOf(path.join(dir, name)), name).toBe(0o600);
      store.close();
    } finally {
      process.umask(previous);
    }
  });

  it("tightens a folder and files an older Lathe left readable, says so, and leaves other files alone", () => {
    const dir = scratch();
    openStore({ dataDir: dir }).store.close();
    const own = ["lathe.db", "lathe.db.backup-v3-2025-01-01T00-00-00-000Z", "lathe.db.corrupt-2025-01-01", "window-state.json"];
    for (const name of own.slice(1)) fs.writeFileSync(path.join(dir, name), "x");
    fs.writeFileSync(path.join(dir, "notes.txt"), "mine");
    const outside = path.join(scratch(), "elsewhere.txt");
    fs.writeFileSync(outside, "not Lathe's");
    fs.symlinkSync(outside, path.join(dir, "lathe.db.backup-link"));
    for (const name of [...own, "notes.txt"]) fs.chmodSync(path.join(dir, name), 0o644);
    fs.chmodSync(outside, 0o644);
    fs.chmodSync(dir, 0o755);

    const { store, notices } = openStore({ dataDir: dir });
    store.close();
    expect(notices.map((n) => n.kind)).toEqual(["data-folder-private"]);
    expect(notices[0]!.message).toContain(`Other users of this computer could read your Lathe data in ${dir}: the folder (was 755), `);
    for (const name of own) expect(notices[0]!.message).toContain(`${name} (was 644)`);
    expect(notices[0]!.message).toMatch(/now readable by you only/);
    expect(notices[0]!.message).not.toContain("notes.txt");
    expect(modeOf(dir)).toBe(0o700);
    for (const name of own) expect(modeOf(path.join(dir, name)), name).toBe(0o600);
    expect(modeOf(path.join(dir, "notes.txt"))).toBe(0o644);
    expect(modeOf(outside)).toBe(0o644);

    // Once private, the next start has nothing to say.
    const again = openStore({ dataDir: dir });
    again.store.close();
    expect(again.notices).toEqual([]);
  });

  it("makes every file the services write private under a permissive umask: the lock's journal, the checkpoints", async () => {
    const dir = path.join(scratch(), "lathe");
    const previous = process.umask(0o022);
    /** Every file and folder under dir that others could read, with its mode. */
    const loose = () =>
      (fs.readdirSync(dir, { recursive: true }) as string[])
        .map((name) => [name, modeOf(path.join(dir, name))] as const)
        .filter(([, mode]) => mode & 0o077)
        .map(([name, mode]) => `${name} ${mode.toString(8)}`);
    try {
      const services = createAppServices({ dataDir: dir, secrets: noSecretStore, host: "browser", version: "test", env: {} });
      // A session in a project: its first checkpoint (a shadow git repository) is taken in the background.
      const projectDir = scratch();
      fs.writeFileSync(path.join(projectDir, "code.js"), "secret business logic\n");
      const project = (await services.router.handle("projects.open", { folder: projectDir })) as { data: { id: number } };
      const session = (await services.router.handle("sessions.create", { projectId: project.data.id })) as { data: { id: number } };
      services.store.appendMessage(session.data.id, user("hello"));
      const head = path.join(dir, "checkpoints", "projects", `${project.data.id}.git`, "HEAD");
      await expect.poll(() => (fs.existsSync(head) ? fs.readFileSync(head, "utf8") : ""), { timeout: 60_000 }).toMatch(/^[0-9a-f]{40}\n$/);
      const files = fs.readdirSync(dir, { recursive: true }) as string[];
      expect(files).toEqual(expect.arrayContaining(["lathe.lock", "lathe.lock-journal", "lathe.db-wal", path.join("checkpoints", "checkpoints.db-wal")]));
      expect(files.filter((name) => name.includes(`${path.sep}objects${path.sep}`)).length).toBeGreaterThan(2);
      expect(loose()).toEqual([]);
      await services.close();
      // Files an older Lathe left readable: the next start's own journal and WAL are private too.
      for (const name of ["lathe.lock", path.join("checkpoints", "checkpoints.db")]) fs.chmodSync(path.join(dir, name), 0o644);
      const again = createAppServices({ dataDir: dir, secrets: noSecretStore, host: "browser", version: "test", env: {} });
      again.store.appendMessage(session.data.id, user("again"));
      expect(fs.existsSync(path.join(dir, "lathe.lock-journal"))).toBe(true);
      expect(loose()).toEqual([]);
      await again.close();
    } finally {
      process.umask(previous);
    }
  });

  it("brings the notice to the window through app.info", async () => {
    const dir = scratch();
    fs.chmodSync(dir, 0o750);
    const services = createAppServices({ dataDir: dir, secrets: noSecretStore, host: "browser", version: "test", env: {} });
    try {
      const info = await services.router.handle("app.info", {});
      expect(info).toMatchObject({ ok: true, data: { notices: [expect.stringContaining("the folder (was 750)")] } });
    } finally {
      await services.close();
    }
  });

  it("does nothing to modes on Windows, where the folder is in the person's own profile", () => {
    const dir = scratch();
    fs.chmodSync(dir, 0o755);
    expect(makeDataFolderPrivate(dir, "win32")).toEqual({ tightened: [], failed: [] });
    expect(modeOf(dir)).toBe(0o755);
  });
});

describe("a zero-length database", () => {
  it("starts fresh with a notice, once", () => {
    const dir = scratch();
    fs.writeFileSync(path.join(dir, "lathe.db"), "", { mode: 0o600 });
    const first = openStore({ dataDir: dir });
    expect(first.notices.map((n) => n.kind)).toEqual(["database-empty"]);
    expect(first.notices[0]!.message).toMatch(/was empty \(0 bytes\), so there were no sessions to load; a fresh one was started/);
    first.store.openProject("/p");
    first.store.close();
    const second = openStore({ dataDir: dir });
    expect(second.notices).toEqual([]);
    expect(second.store.listProjects()).toHaveLength(1);
    second.store.close();
  });
});
