import { EventEmitter } from "node:events";
import { describe, expect, it } from "vitest";
import { startUpdater, updateDecision, type UpdaterDeps, type UpdaterLike } from "../../app/main/electron/update-policy.ts";

class FakeUpdater extends EventEmitter implements UpdaterLike {
  autoDownload = true;
  autoInstallOnAppQuit = true;
  checks = 0;
  downloads = 0;
  installs = 0;
  async checkForUpdates(): Promise<unknown> {
    this.checks++;
    return null;
  }
  async downloadUpdate(): Promise<unknown> {
    this.downloads++;
    return [];
  }
  quitAndInstall(): void {
    this.installs++;
  }
}

function deps(overrides: Partial<UpdaterDeps> & { updater?: FakeUpdater } = {}): UpdaterDeps & { logs: string[]; asked: string[] } {
  const logs: string[] = [];
  const asked: string[] = [];
  const updater = overrides.updater ?? new FakeUpdater();
  return {
    isPackaged: true,
    feedFile: "/app/resources/app-update.yml",
    env: {},
    exists: (file) => file === "/app/resources/app-update.yml",
    loadUpdater: async () => updater,
    prompts: {
      askToDownload: async (version) => (asked.push(`download ${version}`), true),
      askToInstall: async (version) => (asked.push(`install ${version}`), "now"),
    },
    log: (message) => logs.push(message),
    logs,
    asked,
    ...overrides,
  };
}

const flush = () => new Promise((resolve) => setImmediate(resolve));

describe("updateDecision", () => {
  it("is off without a publish configuration, when not packaged, or when disabled", () => {
    expect(updateDecision(deps({ exists: () => false }))).toEqual({ on: false, reason: "no publish configuration (app-update.yml is absent)" });
    expect(updateDecision(deps({ isPackaged: false }))).toMatchObject({ on: false, reason: "not a packaged build" });
    expect(updateDecision(deps({ env: { LATHE_DISABLE_UPDATES: "1" } }))).toMatchObject({ on: false });
    expect(updateDecision(deps())).toEqual({ on: true });
  });
});

describe("startUpdater", () => {
  it("never loads the updater when off", async () => {
    let loaded = false;
    const d = deps({ exists: () => false, loadUpdater: async () => ((loaded = true), new FakeUpdater()) });
    expect((await startUpdater(d)).on).toBe(false);
    expect(loaded).toBe(false);
    expect(d.logs[0]).toContain("updates off");
  });

  it("checks once with automatic download and install turned off", async () => {
    const updater = new FakeUpdater();
    await startUpdater(deps({ updater }));
    expect(updater.checks).toBe(1);
    expect(updater.autoDownload).toBe(false);
    expect(updater.autoInstallOnAppQuit).toBe(false);
    expect(updater.downloads).toBe(0);
  });

  it("downloads only after the user agrees, and installs only after the second answer", async () => {
    const updater = new FakeUpdater();
    const d = deps({ updater });
    await startUpdater(d);
    updater.emit("update-available", { version: "0.2.0" });
    await flush();
    expect(d.asked).toEqual(["download 0.2.0"]);
    expect(updater.downloads).toBe(1);
    expect(updater.installs).toBe(0);
    updater.emit("update-downloaded", { version: "0.2.0" });
    await flush();
    expect(d.asked).toEqual(["download 0.2.0", "install 0.2.0"]);
    expect(updater.installs).toBe(1);
  });

  it("downloads nothing when the user declines", async () => {
    const updater = new FakeUpdater();
    const d = deps({ updater, prompts: { askToDownload: async () => false, askToInstall: async () => "now" } });
    await startUpdater(d);
    updater.emit("update-available", { version: "0.2.0" });
    await flush();
    expect(updater.downloads).toBe(0);
    expect(d.logs).toContain("update 0.2.0 declined");
  });

  it("installs on quit when the user picks later", async () => {
    const updater = new FakeUpdater();
    await startUpdater(deps({ updater, prompts: { askToDownload: async () => true, askToInstall: async () => "on-quit" } }));
    updater.emit("update-downloaded", { version: "0.2.0" });
    await flush();
    expect(updater.installs).toBe(0);
    expect(updater.autoInstallOnAppQuit).toBe(true);
  });

  it("logs failures instead of throwing", async () => {
    const updater = new FakeUpdater();
    updater.checkForUpdates = async () => {
      throw new Error("offline");
    };
    const d = deps({ updater });
    expect(await startUpdater(d)).toEqual({ on: true });
    updater.emit("error", new Error("bad feed"));
    await flush();
    expect(d.logs).toEqual(expect.arrayContaining(["update check failed: Error: offline", "update failed: bad feed"]));
    const broken = deps({ loadUpdater: async () => Promise.reject(new Error("no module")) });
    expect((await startUpdater(broken)).on).toBe(false);
  });
});
