// Where a typed project folder resolves to (relative paths and `~` from the home folder, not the
// host's working folder), which folders need a confirmation (home, `/`, above home, also through a
// link), and that projects.open refuses those without `confirmed`.
import { mkdirSync, mkdtempSync, realpathSync, rmSync, symlinkSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { createAppServices } from "../../app/main/app-services.ts";
import { broadness, resolveProjectFolder } from "../../app/main/sessions/project-folder.ts";
import { noSecretStore } from "../../app/main/settings/settings-service.ts";
import { answeredOffThread } from "../../app/main/tools/fs-answers.ts";

const scratch = realpathSync(mkdtempSync(path.join(tmpdir(), "lathe-project-folder-")));
const home = path.join(scratch, "home", "me");
mkdirSync(path.join(home, "code", "app"), { recursive: true });
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

describe("resolveProjectFolder", () => {
  it("takes relative paths and ~ from the home folder", () => {
    expect(resolveProjectFolder("code/app", home)).toEqual({ folder: path.join(home, "code", "app"), broad: null, home });
    expect(resolveProjectFolder("  ~/code/app/ ", home).folder).toBe(path.join(home, "code", "app"));
    expect(resolveProjectFolder("./code/../code/app", home).folder).toBe(path.join(home, "code", "app"));
    expect(resolveProjectFolder("/srv/x/../y", home).folder).toBe("/srv/y");
  });

  it("marks home, the root and folders above home as broad, also when reached through a link", () => {
    expect(resolveProjectFolder("~", home).broad).toBe("home");
    expect(resolveProjectFolder(".", home).broad).toBe("home");
    expect(resolveProjectFolder("code/..", home).broad).toBe("home");
    expect(resolveProjectFolder("/", home).broad).toBe("root");
    expect(resolveProjectFolder("..", home).broad).toBe("above-home");
    expect(resolveProjectFolder(scratch, home).broad).toBe("above-home");
    expect(resolveProjectFolder("code", home).broad).toBeNull();
    // A sibling whose name starts like home is not above it.
    mkdirSync(`${home}2`, { recursive: true });
    expect(broadness(`${home}2`, home)).toBeNull();
    const link = path.join(scratch, "link-to-home");
    symlinkSync(home, link);
    expect(broadness(link, home)).toBe("home");
  });

  it("gives the same answers with the file system asked off the event loop (as the app asks)", async () => {
    const link = path.join(scratch, "link-to-home-2");
    symlinkSync(home, link);
    for (const typed of ["~", ".", "code/..", "/", "..", scratch, "code", link, `${home}2`, "/nonexistent/x"]) {
      expect(await answeredOffThread((fs) => resolveProjectFolder(typed, home, fs)), typed).toEqual(resolveProjectFolder(typed, home));
    }
  });
});

describe("projects.open", () => {
  it("refuses a broad folder without confirmed, opens it with; relative paths start at home", async () => {
    const services = createAppServices({ dataDir: path.join(scratch, "data"), secrets: noSecretStore, host: "browser", version: "test", env: { HOME: home } });
    try {
      const refused = await services.router.handle("projects.open", { folder: "~" });
      expect(refused.ok).toBe(false);
      if (!refused.ok) expect(refused.error.message).toContain(`${home} is your home folder`);
      expect((await services.router.handle("projects.open", { folder: "/" })).ok).toBe(false);
      const resolved = await services.router.handle("projects.resolve", { folder: "code/app" });
      expect(resolved).toEqual({ ok: true, data: { folder: path.join(home, "code", "app"), broad: null, home } });
      const opened = await services.router.handle("projects.open", { folder: "code/app" });
      expect(opened.ok && (opened.data as { folder: string }).folder).toBe(path.join(home, "code", "app"));
      const confirmed = await services.router.handle("projects.open", { folder: "~", confirmed: true });
      expect(confirmed.ok && (confirmed.data as { folder: string }).folder).toBe(home);
    } finally {
      await services.close();
    }
  });
});
