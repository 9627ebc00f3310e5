// Stopping a command that runs under bubblewrap. The pty's process is bwrap itself; its child is
// the PID namespace's init, and everything the command starts (daemons included: orphans are
// adopted by that init) is below it, in bwrap's process group unless it made its own. bwrap dies
// on a plain SIGINT and takes the command with it, so the command is interrupted by signalling
// only what runs inside; when it has to go, killing the namespace's init makes the kernel kill
// every process in the namespace at once.
// Never throws.
import { isAlive, processFamily, readProcInfo } from "../tools/process-tree.ts";
import { familyOf } from "../tools/process-tree-off-thread.ts";

function signal(pid: number, sig: NodeJS.Signals): void {
  try {
    process.kill(pid, sig);
  } catch {
    // already gone
  }
}

/** bwrap's init in the namespace: the child of `root` (pid of the bwrap the pty started). */
function namespaceInit(root: number, family: number[]): number | undefined {
  return family.find((pid) => pid !== root && readProcInfo(pid)?.ppid === root);
}

/**
 * Ctrl-C for a sandboxed command: SIGINT to the terminal's foreground process group, as a terminal
 * would, except bwrap and its init (they share the command's group, and bwrap would die of it).
 */
export function interruptSandboxed(root: number, fallback: () => void): void {
  const tpgid = readProcInfo(root)?.tpgid ?? -1;
  if (tpgid > 0 && tpgid !== root) {
    // The command gave the terminal to a group of its own (job control): bwrap is not in it.
    try {
      process.kill(-tpgid, "SIGINT");
      return;
    } catch {
      // gone: fall through
    }
  }
  const family = processFamily(root);
  const init = namespaceInit(root, family);
  const targets = family.filter((pid) => pid !== root && pid !== init && readProcInfo(pid)?.pgrp === root);
  if (targets.length === 0) return fallback();
  for (const pid of targets) signal(pid, "SIGINT");
}

/**
 * Interrupt, then terminate what runs inside (bwrap and its init spared, so the command can exit
 * on its own and its last output still arrives), then kill the namespace's init and bwrap: the
 * kernel then kills everything left inside. Finishes within about one second.
 */
export async function killSandboxed(root: number): Promise<void> {
  const steps: [NodeJS.Signals, number][] = [
    ["SIGINT", 300],
    ["SIGTERM", 400],
  ];
  let init: number | undefined;
  for (const [sig, waitMs] of steps) {
    const family = await familyOf(root); // scanned in a worker
    init ??= namespaceInit(root, family);
    for (const pid of family) if (pid !== root && pid !== init) signal(pid, sig);
    const deadline = Date.now() + waitMs;
    while (Date.now() < deadline) {
      await new Promise((r) => setTimeout(r, 25));
      if (!isAlive(root)) return;
    }
  }
  if (init !== undefined) signal(init, "SIGKILL");
  signal(root, "SIGKILL");
  const deadline = Date.now() + 500;
  while (Date.now() < deadline && (isAlive(root) || (init !== undefined && isAlive(init)))) await new Promise((r) => setTimeout(r, 25));
}
