// Lathe's running commands share the CPU like one program, so several busy commands at once
// cannot crowd out the window and the agent loop. On Linux each command is a session of its own
// (it has its own terminal), and where the kernel's autogroup scheduling is on (the default of
// Debian's, Ubuntu's and Fedora's kernels) every session is one scheduling group with an equal
// share whatever its processes' nice values: four busy commands held four fifths of the cores
// against the whole app (bench:ui). So with n commands running, each one's session autogroup is
// set `shareNice(n)` nice steps below Lathe's own group (19 at most): nice 0 weighs 1024 and each
// step about 1.25 times less, so the n groups weigh together about as much as one (2 commands:
// nice 3, 526 each; 4: nice 6, 272 each; 8: nice 9). A command alone is left as it is (it already
// has the share of one program), and the others go back up as commands end. The autogroup covers
// every process of the session, whenever it started; it is written only once the command leads
// its session (node-pty's fork may not have made it yet: written earlier it would lower Lathe's own
// group). Where cgroups rather than autogroups group processes, and on macOS, a command started
// while others run gets the same nice of its own (its children inherit it; it is not raised again).
// The kernel takes one change of an autogroup's nice per 100 ms from a process without
// CAP_SYS_ADMIN (system-wide; later ones fail with EAGAIN): the writes go one at a time, retried
// every RETRY_MS. Never throws or rejects.
import { readFileSync, writeFileSync } from "node:fs";
import { getPriority, setPriority } from "node:os";
import { setTimeout as sleep } from "node:timers/promises";
import { sessionFormed } from "./process-tree.ts";

const LOWEST = 19;
/** The kernel's rate limit on unprivileged autogroup changes is 100 ms (HZ / 10). */
export const RETRY_MS = 110;

/** How many nice steps below Lathe each of n running commands goes (their weights then add up to about one). */
export function shareNice(n: number): number {
  return n <= 1 ? 0 : Math.min(LOWEST, Math.round(Math.log(n) / Math.log(1.25)));
}

export interface PriorityOptions {
  platform?: NodeJS.Platform;
  /** Writes an autogroup's nice (tests: the kernel's refusals). */
  writeAutogroup?: (pid: number, nice: number) => void;
}

/** A command whose priority is shared; `end()` once it has exited (before its pid can be reused). */
export interface SharedCommand {
  end(): void;
}

interface Entry {
  /** The nice its autogroup has (0: a new session's). */
  applied: number;
  write: (pid: number, nice: number) => void;
}

const writeProc = (pid: number, nice: number) => writeFileSync(`/proc/${pid}/autogroup`, String(nice));

/** Lathe's running commands and their groups' nice values (process-wide: the cores are). */
export class CommandShares {
  /** Lathe's own autogroup's nice, undefined where there are no autogroups (tests: another machine). */
  readonly #ownGroupNice: () => number | undefined;
  readonly #entries = new Map<number, Entry>();
  /** Commands counted, whose session may not be formed yet. */
  #count = 0;
  #pumping: Promise<void> | undefined;
  /** Whether #writeAll is going through the entries (set and cleared synchronously). */
  #writing = false;
  /** Commands whose session is being waited for. */
  readonly #forming = new Set<Promise<void>>();

  constructor(ownGroupNice: () => number | undefined = lathesGroupNice) {
    this.#ownGroupNice = ownGroupNice;
  }

  /** Counts `pid` in; its group (and the others') follow once its session is formed. */
  add(pid: number, options: PriorityOptions): SharedCommand {
    const platform = options.platform ?? process.platform;
    let ended = false;
    if (platform !== "linux" && platform !== "darwin") return { end: () => undefined };
    this.#count++;
    const step = shareNice(this.#count);
    if (step > 0) {
      try {
        setPriority(pid, Math.min(LOWEST, ownNice() + step));
      } catch {
        // Gone already, or not ours.
      }
    }
    if (platform === "linux" && this.#ownGroupNice() !== undefined) {
      const forming = sessionFormed(pid).then((formed) => {
        this.#forming.delete(forming);
        if (!formed || ended) return;
        this.#entries.set(pid, { applied: 0, write: options.writeAutogroup ?? writeProc });
        this.#pump();
      });
      this.#forming.add(forming);
    }
    return {
      end: () => {
        if (ended) return;
        ended = true;
        this.#count--;
        this.#entries.delete(pid);
        this.#pump();
      },
    };
  }

  /** Resolves once every running command's group has its nice (or could not be given it). */
  async settled(): Promise<void> {
    while (this.#forming.size > 0 || this.#pumping) await Promise.all([...this.#forming, this.#pumping]);
  }

  #target(): number {
    return Math.min(LOWEST, (this.#ownGroupNice() ?? 0) + shareNice(this.#count));
  }

  #pump(): void {
    if (this.#writing) return;
    this.#writing = true;
    const pumping = this.#writeAll();
    this.#pumping = pumping;
    void pumping.finally(() => {
      if (this.#pumping === pumping) this.#pumping = undefined;
    });
  }

  async #writeAll(): Promise<void> {
    for (;;) {
      const target = this.#target();
      const next = [...this.#entries].find(([, entry]) => entry.applied !== target);
      if (!next) {
        // Cleared at once (not after an await): a command added next starts writing again.
        this.#writing = false;
        return;
      }
      const [pid, entry] = next;
      try {
        entry.write(pid, target);
        entry.applied = target;
      } catch (err) {
        // The rate limit: this one again shortly. Anything else (a kernel without autogroups, the
        // command gone): it is left as it is.
        if ((err as NodeJS.ErrnoException).code === "EAGAIN") await sleep(RETRY_MS);
        else entry.applied = target;
      }
    }
  }
}

const shares = new CommandShares();

/** Counts a starting command (`pid`, a session leader or about to be) among Lathe's running ones. */
export function shareCommandPriority(pid: number, options: PriorityOptions = {}): SharedCommand {
  return shares.add(pid, options);
}

function ownNice(): number {
  try {
    return getPriority();
  } catch {
    return 0;
  }
}

/**
 * The nice that the commands' groups are counted down from: Lathe's autogroup's; or, where Lathe
 * is in the kernel's default group (started by a process that never made a session, as some
 * service managers and CI runners do: its autogroup file reads empty), its own nice, which its
 * threads then compete with one by one against the commands' groups; undefined without autogroups.
 */
export function lathesGroupNice(read: () => string = () => readFileSync("/proc/self/autogroup", "latin1"), nice: () => number = ownNice): number | undefined {
  let text: string;
  try {
    text = read();
  } catch {
    return undefined;
  }
  const match = / nice (-?\d+)/.exec(text);
  if (match) return Number(match[1]);
  return text.trim() === "" ? nice() : undefined;
}

/** The autogroup's nice of `pid` ("self" for Lathe), undefined without autogroups or in the default group. */
export function autogroupNice(pid: number | "self"): number | undefined {
  try {
    // "/autogroup-123 nice 0"
    const match = / nice (-?\d+)/.exec(readFileSync(`/proc/${pid}/autogroup`, "latin1"));
    return match ? Number(match[1]) : undefined;
  } catch {
    return undefined;
  }
}
