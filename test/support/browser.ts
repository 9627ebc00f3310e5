// Launches the machine's Chromium (Debian's /usr/bin/chromium, or CHROME_PATH) headless through
// playwright-core, with the flags that keep it off the network. Never downloads a browser.
import { existsSync } from "node:fs";
import { chromium, type Browser } from "playwright-core";

export const CHROME_PATH = process.env.CHROME_PATH ?? "/usr/bin/chromium";

export function chromiumAvailable(): boolean {
  return existsSync(CHROME_PATH);
}

/** What the browser suites need and is missing (for describeWhen), or null. */
export function chromiumMissing(): string | null {
  return chromiumAvailable() ? null : `needs Chromium at ${CHROME_PATH} (apt-get install -y chromium, or set CHROME_PATH)`;
}

/**
 * `extraArgs`: more Chromium flags (the UI benchmark compares frame-rate flags). `executablePath`:
 * a program that starts Chromium (the UI benchmark's wrapper), instead of Chromium itself.
 */
export async function launchBrowser(extraArgs: readonly string[] = [], executablePath = CHROME_PATH): Promise<Browser> {
  if (!chromiumAvailable()) throw new Error(`Chromium not found at ${CHROME_PATH}: install it (apt-get install -y chromium) or set CHROME_PATH.`);
  return chromium.launch({
    executablePath,
    args: ["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run", "--disable-background-networking", "--disable-component-update", "--disable-sync", ...extraArgs],
  });
}
