// The file system's answers to code that asks synchronously, fetched off the event loop. The path
// walk (real-path.ts) and the permission judge ask their questions one after another, each answer
// deciding the next; asked on the main thread, one question to a file system that stops answering
// (a network mount whose server went away, a stopped FUSE process) would hold the whole app, its
// windows included, for as long as that lasts. `answeredOffThread(pass)` runs `pass` against the
// answers it holds: a question without one yet is answered "missing" for this pass and noted; the
// noted questions then go to the system through libuv's threads (fs/promises, never the event
// loop), and the pass runs again with their answers, until a pass asks nothing new. Only that last
// pass's result is returned, so a pass must have no effect but its result.
//
// Bounds, so that a hung file system costs a clear error and no more:
// - one run waits at most `timeoutMs` (FS_ANSWER_TIMEOUT_MS) for all its answers, then rejects
//   with FileSystemTimeoutError naming the path it still waits for;
// - at most MAX_IN_FLIGHT questions are with the system at once, process-wide: a question that
//   never returns holds one of libuv's 4 threads, which the model providers' DNS lookups need too;
//   while every slot is held by a question its run gave up on, runs fail at once;
// - at most MAX_PASSES passes (a walk asks a whole chain of ancestors in one pass, and a Windows
//   path's ancestors are asked with it, so two or three passes are the rule).
// The questions: a real path, a small file's text, a stat, a file's first bytes (small-files.ts
// reads them). `statOffThread` and `presentOffThread` ask one question the same way. The answers
// are the host's (hostAsyncFileSystem) unless a test gives its own. Never throws synchronously;
// rejects only with FileSystemTimeoutError or what `pass` throws.
import { statSync, type Stats } from "node:fs";
import { lstat, realpath, stat } from "node:fs/promises";
import { hostRealpath, realPathOf, type Realpath } from "./real-path.ts";
import { headAsync, headSync, smallFileTextAsync, smallFileTextSync } from "./small-files.ts";

/** Text of a small regular file: null when it does not exist; undefined when it cannot be told. */
export type SmallFileText = (p: string, maxBytes: number) => string | null | undefined;

/** A path's kind and permission bits (links followed); undefined when it does not exist or cannot be read. */
export interface PathStat {
  directory: boolean;
  mode: number;
}

/** What a pass may ask, synchronously. */
export interface SyncFileSystem {
  realpath: Realpath;
  smallFileText: SmallFileText;
  stat(p: string): PathStat | undefined;
  /** The first `maxBytes` of a regular file as UTF-8; undefined when it is missing, not a regular file or unreadable. */
  head(p: string, maxBytes: number): string | undefined;
}

/** How the answers are fetched (stat and head default to the host's). No function may reject. */
export interface AsyncFileSystem {
  realpath(p: string): Promise<string | undefined>;
  smallFileText(p: string, maxBytes: number): Promise<string | null | undefined>;
  stat?(p: string): Promise<PathStat | undefined>;
  head?(p: string, maxBytes: number): Promise<string | undefined>;
}

/** How long one run waits for all its answers. */
export const FS_ANSWER_TIMEOUT_MS = 5_000;
const MAX_IN_FLIGHT = 2;
const MAX_PASSES = 8;
/** `C:\` or `\\server\share\`: a Windows absolute path. */
const WINDOWS_ABSOLUTE = /^(?:[A-Za-z]:\\|\\\\)/;
/** Longest Windows path whose ancestors are asked with it (a path of the system's length limits). */
const MAX_ANCESTORS_PATH = 4096;
/** Characters of a path an error message shows (a model's path may hold thousands). */
const SHOWN_PATH_CHARS = 200;

export class FileSystemTimeoutError extends Error {
  readonly path: string;
  constructor(p: string, detail: string) {
    super(`The file system did not answer about ${shownPath(p)} ${detail} (a network or FUSE mount that stopped responding?), so Lathe stopped waiting.`);
    this.name = "FileSystemTimeoutError";
    this.path = p;
  }
}

function shownPath(p: string): string {
  return p.length > SHOWN_PATH_CHARS ? `${p.slice(0, SHOWN_PATH_CHARS)}… (${p.length.toLocaleString("en-US")} characters)` : p;
}

/** The host's answers, through libuv's threads. */
export const hostAsyncFileSystem: Required<AsyncFileSystem> = {
  realpath: (p) => realpath(p).catch(() => undefined),
  smallFileText: smallFileTextAsync,
  stat: (p) => stat(p).then(pathStat, () => undefined),
  head: headAsync,
};

/** The host's answers, asked now on this thread: for workers, tests and start-up. */
export const hostSyncFileSystem: SyncFileSystem = {
  realpath: hostRealpath,
  smallFileText: smallFileTextSync,
  stat: (p) => {
    try {
      return pathStat(statSync(p));
    } catch {
      return undefined;
    }
  },
  head: headSync,
};

function pathStat(stats: Stats): PathStat {
  return { directory: stats.isDirectory(), mode: stats.mode };
}

/** Runs `pass` until the answers it needs are known; see the header. */
export async function answeredOffThread<T>(pass: (fs: SyncFileSystem) => T, options: { system?: AsyncFileSystem; timeoutMs?: number; seed?: readonly string[] } = {}): Promise<T> {
  const answers = new Answers(options.system ?? hostAsyncFileSystem, options.timeoutMs ?? FS_ANSWER_TIMEOUT_MS);
  if (options.seed) {
    for (const p of options.seed) answers.realpath(p);
    await answers.fetchNoted();
  }
  for (let passes = 1; ; passes++) {
    const result = pass(answers);
    if (!answers.noted()) return result;
    if (passes === MAX_PASSES) throw new FileSystemTimeoutError(answers.firstNoted(), `after ${MAX_PASSES} rounds of questions`);
    await answers.fetchNoted();
  }
}

/** realPathOf(p) (real-path.ts) with the system's answers fetched off the event loop. */
export function realPathOffThread(p: string, options?: { system?: AsyncFileSystem; timeoutMs?: number }): Promise<string> {
  return answeredOffThread((fs) => realPathOf(p, fs.realpath), options);
}

/** A question with the system, for the process-wide count of slots. */
interface InFlight {
  path: string;
  since: number;
  /** Its run stopped waiting for it: the system is taken to be hung there. */
  abandoned: boolean;
}
const inFlight = new Set<InFlight>();
/** Questions waiting for a slot, first come first served; one that gave up is skipped. */
const waiting: { wake: () => void; gone: boolean }[] = [];
/** Slots handed to a woken question that has not taken it yet. */
let handedOver = 0;

function release(question: InFlight | undefined): void {
  if (question) inFlight.delete(question);
  for (let next = waiting.shift(); next; next = waiting.shift()) {
    if (!next.gone) {
      handedOver++;
      return next.wake();
    }
  }
}

/** The oldest question with the system when every slot is held by one its run gave up on. */
function hungQuestion(): InFlight | undefined {
  if (inFlight.size < MAX_IN_FLIGHT) return undefined;
  let oldest: InFlight | undefined;
  for (const q of inFlight) {
    if (!q.abandoned) return undefined;
    if (!oldest || q.since < oldest.since) oldest = q;
  }
  return oldest;
}

type Question = { kind: "realpath" | "stat"; path: string } | { kind: "text" | "head"; path: string; maxBytes: number };

class Answers implements SyncFileSystem {
  /** Answers by question key (kind, bound, path). */
  private readonly known = new Map<string, unknown>();
  private questions: { question: Question; key: string }[] = [];
  private readonly asked = new Set<string>();
  private readonly system: AsyncFileSystem;
  private readonly timeoutMs: number;
  private readonly deadline: number;

  constructor(system: AsyncFileSystem, timeoutMs: number) {
    this.system = system;
    this.timeoutMs = timeoutMs;
    this.deadline = Date.now() + timeoutMs;
  }

  readonly realpath = (p: string): string | undefined => {
    const key = `realpath\0${p}`;
    // A Windows path is walked from its root down, one name a question (real-path.ts): its
    // ancestors are asked with it, so the walk needs two passes, not one per level.
    if (!this.known.has(key) && !this.asked.has(key) && WINDOWS_ABSOLUTE.test(p) && p.length <= MAX_ANCESTORS_PATH) {
      for (let at = p.indexOf("\\", 3); at !== -1; at = p.indexOf("\\", at + 1)) this.answer({ kind: "realpath", path: p.slice(0, at) }, undefined);
    }
    return this.answer({ kind: "realpath", path: p }, undefined);
  };
  readonly smallFileText = (p: string, maxBytes: number): string | null | undefined => this.answer({ kind: "text", path: p, maxBytes }, undefined);
  readonly stat = (p: string): PathStat | undefined => this.answer({ kind: "stat", path: p }, undefined);
  readonly head = (p: string, maxBytes: number): string | undefined => this.answer({ kind: "head", path: p, maxBytes }, undefined);

  /** The known answer, or `unknown` for this pass with the question noted. */
  private answer<T>(question: Question, unknown: T): T {
    const key = `${question.kind}${"maxBytes" in question ? question.maxBytes : ""}\0${question.path}`;
    if (this.known.has(key)) return this.known.get(key) as T;
    if (!this.asked.has(key)) {
      this.asked.add(key);
      this.questions.push({ question, key });
    }
    return unknown;
  }

  noted(): boolean {
    return this.questions.length > 0;
  }

  firstNoted(): string {
    return this.questions[0]?.question.path ?? "";
  }

  /** Asks the noted questions, MAX_IN_FLIGHT at a time process-wide, before the deadline. */
  async fetchNoted(): Promise<void> {
    const questions = this.questions;
    this.questions = [];
    let next = 0;
    let failed = false;
    const asker = async (): Promise<void> => {
      try {
        while (!failed && next < questions.length) {
          const { question, key } = questions[next++]!;
          this.known.set(key, await askWithin(question.path, () => this.fetch(question), undefined, this.deadline, this.timeoutMs));
        }
      } catch (error) {
        failed = true; // the other askers stop too: the run is over
        throw error;
      }
    };
    await Promise.all(Array.from({ length: Math.min(MAX_IN_FLIGHT, questions.length) }, asker));
  }

  /** The system's answer; one that rejects (it must not) counts as "missing" or "cannot tell". */
  private fetch(question: Question): Promise<unknown> {
    const host = hostAsyncFileSystem;
    switch (question.kind) {
      case "realpath":
        return this.system.realpath(question.path);
      case "text":
        return this.system.smallFileText(question.path, question.maxBytes);
      case "stat":
        return (this.system.stat ?? host.stat)(question.path);
      case "head":
        return (this.system.head ?? host.head)(question.path, question.maxBytes);
    }
  }
}

/**
 * One question to the system about `p`, in a slot (see the header), answered before `deadline`
 * or rejected with FileSystemTimeoutError. `ask` must not reject; if it does, the answer is
 * `failed`.
 */
async function askWithin<T, F>(p: string, ask: () => Promise<T>, failed: F, deadline: number, timeoutMs: number): Promise<T | F> {
  let timer: NodeJS.Timeout | undefined;
  const expired = new Promise<"expired">((resolve) => (timer = setTimeout(() => resolve("expired"), Math.max(0, deadline - Date.now()))));
  const late = () => new FileSystemTimeoutError(p, `within ${formatSeconds(timeoutMs)}`);
  try {
    if (Date.now() >= deadline) throw late();
    if (inFlight.size + handedOver >= MAX_IN_FLIGHT || waiting.length > 0) {
      const hung = hungQuestion();
      if (hung) throw new FileSystemTimeoutError(hung.path, `for ${formatSeconds(Date.now() - hung.since)}`);
      const turn = { wake: () => undefined as void, gone: false };
      const slot = new Promise<"slot">((resolve) => (turn.wake = () => resolve("slot")));
      waiting.push(turn);
      if ((await Promise.race([slot, expired])) === "expired") {
        turn.gone = true;
        // Woken in the same turn it expired: the slot handed over goes to the next in line.
        if ((await Promise.race([slot, "not woken" as const])) === "slot") {
          handedOver--;
          release(undefined);
        }
        throw late();
      }
      handedOver--;
    }
    const held: InFlight = { path: p, since: Date.now(), abandoned: false };
    inFlight.add(held);
    let answer: T | F = failed;
    // The slot is freed when the system answers, however late: until then its thread is held.
    const settled = ask().then(
      (value) => void (answer = value),
      () => undefined,
    );
    void settled.then(() => release(held));
    if ((await Promise.race([settled.then(() => "answered" as const), expired])) === "expired") {
      held.abandoned = true;
      throw late();
    }
    return answer;
  } finally {
    clearTimeout(timer);
  }
}

/** Whether anything is at `p`, a dangling link included (lstat): off the event loop, within the time limit. */
export function presentOffThread(p: string, timeoutMs = FS_ANSWER_TIMEOUT_MS): Promise<boolean> {
  return askWithin(
    p,
    () =>
      lstat(p).then(
        () => true,
        () => false,
      ),
    false,
    Date.now() + timeoutMs,
    timeoutMs,
  );
}

/** A path's stat (links followed), undefined when it does not exist or cannot be read: off the event loop, within the time limit. */
export function statOffThread(p: string, timeoutMs = FS_ANSWER_TIMEOUT_MS): Promise<Stats | undefined> {
  return askWithin(p, () => stat(p).catch(() => undefined), undefined, Date.now() + timeoutMs, timeoutMs);
}

function formatSeconds(ms: number): string {
  return `${(ms / 1000).toFixed(ms < 10_000 ? 1 : 0)} s`;
}
