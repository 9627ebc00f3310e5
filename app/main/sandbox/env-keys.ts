// Provider keys in the app's own environment. A command run outside the sandbox (full auto, or by
// the user's choice) runs as the user and can read /proc/<pid>/environ of every process of the
// user: the app's, and the shell's that started it. Deleting a variable from process.env does not
// change that file on Linux: it shows the environment block the kernel wrote at exec time, which
// unsetenv() leaves in place. So at start the app takes a copy of its environment for its own use,
// deletes the keys from process.env (children started later do not get them), and on Linux also
// overwrites the values in that block through /proc/self/mem, only where the bytes still read
// NAME=value. Processes started before that (the shell that launched the app, and in Electron
// helper processes Chromium starts before the main script runs) keep their copy: the remedy that
// always works is to keep keys in the keyring and start the app without them. Never throws.
import { closeSync, openSync, readFileSync, readSync, writeSync } from "node:fs";

/** The key variables the app reads (and the settings screen names). */
export const PROVIDER_KEY_VARIABLES = ["ANTHROPIC_API_KEY", "OPENAI_API_KEY"];

export interface TakenKeys {
  /** The environment as the app started, keys included: give this to the app's services. */
  env: Record<string, string | undefined>;
  /** Variables removed from process.env. */
  removed: string[];
  /** Whether their values were also cleared from this process's /proc/self/environ. */
  clearedFromProc: boolean;
}

export function takeProviderKeysFromEnvironment(target: NodeJS.ProcessEnv = process.env): TakenKeys {
  const env = { ...target };
  const removed = PROVIDER_KEY_VARIABLES.filter((name) => target[name] !== undefined);
  for (const name of removed) delete target[name];
  const clearedFromProc = removed.length === 0 || (process.platform === "linux" && target === process.env && clearFromProcEnviron(removed.map((name) => [name, env[name]!])));
  return { env, removed, clearedFromProc };
}

/** Zeroes the values of `entries` in this process's initial environment block. */
export function clearFromProcEnviron(entries: [name: string, value: string][]): boolean {
  let fd: number | undefined;
  try {
    const stat = readFileSync("/proc/self/stat", "latin1");
    // Fields after the command name start at field 3; env_start and env_end are fields 50 and 51.
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    const start = Number(fields[47]);
    const end = Number(fields[48]);
    if (!Number.isSafeInteger(start) || !Number.isSafeInteger(end) || end <= start || end - start > 1 << 24) return false;
    fd = openSync("/proc/self/mem", "r+");
    const block = Buffer.alloc(end - start);
    readSync(fd, block, 0, block.length, start);
    let cleared = 0;
    for (const [name, value] of entries) {
      const entry = Buffer.from(`${name}=${value}\0`);
      for (let at = block.indexOf(entry); at !== -1; at = block.indexOf(entry, at + entry.length)) {
        if (at !== 0 && block[at - 1] !== 0) continue;
        const valueAt = at + name.length + 1;
        const zeros = Buffer.alloc(entry.length - name.length - 2);
        writeSync(fd, zeros, 0, zeros.length, start + valueAt);
        cleared++;
      }
    }
    return cleared > 0 && entries.every(([name, value]) => !readFileSync("/proc/self/environ").includes(Buffer.from(`${name}=${value}`)));
  } catch {
    return false;
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
}
