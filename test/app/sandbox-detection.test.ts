// The sandbox is detected in the background from the app's start: with a bwrap whose probe takes
// a second, the app's event loop keeps running (no gap near that second), the settings wait for
// the answer rather than probing on the main thread, the default mode follows it ("sandboxed
// auto" where bwrap works), and bwrap is probed once.
import { chmodSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
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
  "a slow sandbox probe holds neither the start nor the settings on the main thread",
  async () => {
    const bin = path.join(dir, "bin");
    mkdirSync(bin);
    const log = path.join(dir, "probes.log");
    writeFileSync(path.join(bin, "bwrap"), `#!/bin/sh\necho probe >> '${log}'\nsleep 1\nexit 0\n`);
    chmodSync(path.join(bin, "bwrap"), 0o755);

    let longestGap = 0;
    let last = performance.now();
    const sample = () => {
      const now = performance.now();
      longestGap = Math.max(longestGap, now - last);
      last = now;
    };
    const timer = setInterval(sample, 10);
    const started = performance.now();
    try {
      app = await startApp({ env: { PATH: `${bin}:/usr/bin:/bin` } });
    } finally {
      clearInterval(timer);
      sample();
    }
    // The start waited for the probe's answer, and the event loop ran all along.
    expect(performance.now() - started).toBeGreaterThanOrEqual(950);
    expect(longestGap).toBeLessThan(500);
    const settings = await app.call("settings.get", {});
    expect(settings.sandbox).toMatchObject({ kind: "bubblewrap", available: true });
    expect(settings.permissionMode).toBe("sandboxed-auto");
    expect(readFileSync(log, "utf8")).toBe("probe\n");
  },
  20_000,
);
