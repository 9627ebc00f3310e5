// The sandbox is detected in the background from the app's start: a bwrap whose probe answers
// only once this process's event loop has run a timer (it waits for a file the timer writes) is
// found working, which a probe run on the main thread could never be (the timer could not run: the
// probe gives up and fails); the settings wait for the answer rather than probing themselves, the
// default mode follows it ("sandboxed auto" where bwrap works), and bwrap is probed once.
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, expect } from "vitest";
import { startApp, type AppHarness } from "../support/app-harness.ts";
import { itWhen, needsLinux } from "../support/requirements.ts";

const dir = mkdtempSync(path.join(tmpdir(), "lathe-slow-bwrap-"));
let app: AppHarness | undefined;
afterAll(async () => {
  await app?.close();
  rmSync(dir, { recursive: true, force: true });
});

itWhen(
  needsLinux(),
  "a sandbox probe that needs the event loop to run is answered: it never runs on the main thread",
  async () => {
    const bin = path.join(dir, "bin");
    mkdirSync(bin);
    const log = path.join(dir, "probes.log");
    const release = path.join(dir, "release");
    // Waits up to 8 s for the release file; fails without it.
    writeFileSync(
      path.join(bin, "bwrap"),
      `#!/bin/sh\necho probe >> '${log}'\ni=0\nwhile [ ! -e '${release}' ] && [ $i -lt 400 ]; do sleep 0.02; i=$((i+1)); done\n[ -e '${release}' ] || exit 1\nexit 0\n`,
    );
    chmodSync(path.join(bin, "bwrap"), 0o755);

    // A timer of this process releases the probe once it has started.
    const timer = setInterval(() => {
      if (existsSync(log)) writeFileSync(release, "");
    }, 20);
    try {
      app = await startApp({ env: { PATH: `${bin}:/usr/bin:/bin` } });
    } finally {
      clearInterval(timer);
    }
    const settings = await app.call("settings.get", {});
    expect(settings.sandbox).toMatchObject({ kind: "bubblewrap", available: true });
    expect(settings.permissionMode).toBe("sandboxed-auto");
    expect(readFileSync(log, "utf8")).toBe("probe\n");
  },
  30_000,
);
