// Glob matching for find and grep that cannot freeze the main thread. picomatch turns a glob into
// a JavaScript regex, and V8's regexes backtrack: each `*` becomes `[^/]*?`, so a glob of many
// stars costs about n^stars steps on a name that does not match, and a quantified extglob can
// cost 2^n. `*?*?*?*?*?*?*?*?*?*?*?*?*?*?*?*?Q` (a model's tool argument) held the main thread for
// 14 s on a folder of ordinary names, and longer ones for minutes: the whole app stopped, and an
// abort could not stop it. So only an everyday glob is matched here (everydayGlob: literals,
// classes, `?`, at most two brace lists of plain words, no extglob, and a regex of at most two
// unbounded repeats: n^2 steps on a name or path); any other is matched in the compute pool, in
// batches. (A check of the regex alone let through globs of alternatives without a repeat,
// `{?,?}` or `{,?}` many times over, or `*({?,?})`: 2^n steps, seconds to minutes per name, found
// in review.) Results are picomatch's own for { dot: true }.
//
// Time: one matcher serves one tool call (find, grep), whose names arrive in many batches. Its
// budget (GLOB_BUDGET_MS) is the matching time of all its batches together, as the workers
// measured it: a glob that is slow on these names is stopped after 5 s of work in all, however
// many batches there are (with a budget per batch, a call over 100,000 names could run 200 of
// them for 5 s each). A wait for a free worker (the pool runs two jobs at a time, for every
// session's tools and the permission dialogs) is not the glob's cost and is not counted: with it
// counted, a cheap glob was stopped because other work filled the pool. Waits are bounded apart:
// the time a call spends in `filter` in all, waits and matching (not its walk of the folders), is
// capped at GLOB_CALL_CAP_MS. Each bound that runs out ends the call with one error naming the
// glob and the bound.
//
// Size: picomatch compiles a glob here, on the main thread, and its compile time grows with the
// glob's length times its nesting of braces and groups: 16 KB of nested braces `{{{…}}}` took
// 5 s, 4 KB of nested extglobs `*(*(…))` 19 s. So a glob over MAX_GLOB_CHARS characters, or
// nested more than MAX_GLOB_NESTING deep, is refused before picomatch sees it (checkGlob,
// GlobLimitError, naming the limit); within both a compile takes at most about 20 ms. Every
// caller of picomatch goes through globMatcher, which compiles a glob once (a few recent ones are
// kept, as grep asks twice).
import picomatch from "picomatch";
import { ComputeAbortedError, type ComputePool, ComputeTimeoutError, computePool } from "../workers/compute-pool.ts";
import type { GlobJobResult } from "./glob-job.ts";

/** Matching time a glob may use in one tool call, all batches together (waits for a worker not counted). */
export const GLOB_BUDGET_MS = 5_000;
/** Time a glob may hold one tool call in all: waits for a free worker and matching. */
export const GLOB_CALL_CAP_MS = 30_000;
/** Names per job sent to the pool. */
export const GLOB_BATCH = 512;
/** Longest glob accepted, in characters (UTF-16 units). */
export const MAX_GLOB_CHARS = 2_048;
/** Deepest nesting of braces and parentheses accepted in a glob. */
export const MAX_GLOB_NESTING = 6;

/** A glob refused for its size (checkGlob): the message names the limit. */
export class GlobLimitError extends Error {}

/**
 * Throws GlobLimitError for a glob over MAX_GLOB_CHARS or nested deeper than MAX_GLOB_NESTING.
 * Nesting counts every `{` and `(` not yet closed by a `}` or `)`, escaped or in a class too (an
 * unclosed one counts): an overcount only refuses a glob no one writes. Linear in the glob.
 */
export function checkGlob(glob: string): void {
  if (glob.length > MAX_GLOB_CHARS) {
    throw new GlobLimitError(`The glob ${shownGlob(glob)} is ${glob.length} characters long, over the limit of ${MAX_GLOB_CHARS}: use a shorter glob, or search in several calls.`);
  }
  let depth = 0;
  let deepest = 0;
  for (let i = 0; i < glob.length; i++) {
    const c = glob.charCodeAt(i);
    if (c === 0x7b || c === 0x28) deepest = Math.max(deepest, ++depth);
    else if ((c === 0x7d || c === 0x29) && depth > 0) depth--;
  }
  if (deepest > MAX_GLOB_NESTING) {
    throw new GlobLimitError(
      `The glob ${shownGlob(glob)} nests braces or parentheses ${deepest} deep (unclosed ones count), over the limit of ${MAX_GLOB_NESTING}: ` +
        'flatten it, e.g. "{a,b,c}" rather than "{a,{b,c}}".',
    );
  }
}

/** Recently compiled globs (grep compiles its glob twice: ripgrepCanFilter, then the search). */
const recent = new Map<string, RegExp>();
const RECENT_MAX = 8;

/** picomatch's regex for `glob` with { dot: true }, after checkGlob. */
function compile(glob: string): RegExp {
  let regex = recent.get(glob);
  if (!regex) {
    checkGlob(glob);
    regex = picomatch.makeRe(glob, { dot: true });
    if (recent.size >= RECENT_MAX) recent.delete(recent.keys().next().value!);
    recent.set(glob, regex);
  }
  return regex;
}

/**
 * Whether a regex source could backtrack hard: more than two unbounded repeats (`*`, `+`,
 * `{n,}`), or a repeated group that holds a repeat or alternatives (nested quantifiers).
 * Looks at the source's syntax only; a class `[...]` and an escape are single atoms.
 */
export function backtracksHard(source: string): boolean {
  let repeats = 0;
  /** For each open group: whether it holds an unbounded repeat or an alternative. */
  const groups: boolean[] = [];
  let lastGroupRisky = false;
  let afterGroup = false;
  for (let i = 0; i < source.length; i++) {
    const c = source[i]!;
    const wasAfterGroup = afterGroup;
    afterGroup = false;
    if (c === "\\") {
      i++;
    } else if (c === "[") {
      for (i++; i < source.length && source[i] !== "]"; i++) if (source[i] === "\\") i++;
    } else if (c === "(") {
      groups.push(false);
    } else if (c === ")") {
      lastGroupRisky = groups.pop() ?? false;
      afterGroup = true;
    } else if (c === "|") {
      if (groups.length > 0) groups[groups.length - 1] = true;
    } else if (c === "*" || c === "+" || (c === "{" && /^\{\d*,\}/.test(source.slice(i, i + 12)))) {
      repeats++;
      if (wasAfterGroup && lastGroupRisky) return true;
      if (groups.length > 0) groups[groups.length - 1] = true;
    } else if (c === "{" && wasAfterGroup && lastGroupRisky && /^\{\d+(,\d+)?\}/.test(source.slice(i, i + 24))) {
      return true;
    }
  }
  return repeats > 2;
}

/** At most this many brace lists in an everyday glob (each multiplies the ways to match). */
const MAX_BRACE_LISTS = 2;

/**
 * Whether `glob` is of the everyday kind matched inline: outside brackets and escapes no extglob
 * or group characters (`(`, `)`, `|`, `!`, `+`, `@`), and at most MAX_BRACE_LISTS brace lists, not
 * nested, whose items are plain words (no wildcard, class, range or empty item). Its regex must also
 * pass backtracksHard.
 */
export function everydayGlob(glob: string): boolean {
  let lists = 0;
  for (let i = 0; i < glob.length; i++) {
    const c = glob[i]!;
    if (c === "\\") i++;
    else if (c === "[") {
      for (i++; i < glob.length && glob[i] !== "]"; i++) if (glob[i] === "\\") i++;
    } else if ("()|!+@".includes(c)) return false;
    else if (c === "{") {
      const end = glob.indexOf("}", i);
      if (end === -1 || ++lists > MAX_BRACE_LISTS) return false;
      const items = glob.slice(i + 1, end).split(",");
      if (items.length < 2 || items.some((item) => !/^[\w.-]+$/.test(item) || item.includes(".."))) return false;
      i = end;
    } else if (c === "}") return false;
  }
  return true;
}

export interface GlobMatcher {
  /** The matcher to call here, or null when names must go to the compute pool (`filter`). */
  readonly inline: ((subject: string) => boolean) | null;
  /**
   * Which of `subjects` match, in order. Rejects with a clear error once the matcher's matching
   * budget or its cap on time in all is spent (over every call of `filter`), and with
   * ComputeAbortedError on abort.
   */
  filter(subjects: string[], signal?: AbortSignal): Promise<boolean[]>;
}

export interface GlobMatcherOptions {
  pool?: ComputePool;
  /** Matching time in all (GLOB_BUDGET_MS). */
  budgetMs?: number;
  /** Time in `filter` in all, waits included (GLOB_CALL_CAP_MS). */
  capMs?: number;
}

/**
 * Compiles `glob` (throws GlobLimitError for one over the size limits, picomatch's error for an
 * invalid one); see the header for where it runs.
 */
export function globMatcher(glob: string, options: GlobMatcherOptions = {}): GlobMatcher {
  const regex = compile(glob);
  // What picomatch(glob, { dot: true }) returns, without compiling the glob again.
  const inline = (subject: string) => picomatch.test(subject, regex, { dot: true }, { glob }).isMatch;
  if (everydayGlob(glob) && !backtracksHard(regex.source)) {
    return { inline, filter: (subjects) => Promise.resolve(subjects.map((s) => inline(s))) };
  }
  const budgetMs = options.budgetMs ?? GLOB_BUDGET_MS;
  const capMs = options.capMs ?? GLOB_CALL_CAP_MS;
  /** The workers' matching time so far, and the time spent in `filter` so far. */
  let matchedMs = 0;
  let heldMs = 0;
  return {
    inline: null,
    async filter(subjects, signal) {
      const matched = new Array<boolean>(subjects.length).fill(false);
      const pool = options.pool ?? computePool();
      if (heldMs >= capMs) throw globCapped(glob, capMs);
      const cap = AbortSignal.timeout(Math.ceil(capMs - heldMs));
      const stop = signal ? AbortSignal.any([signal, cap]) : cap;
      const started = performance.now();
      try {
        for (let start = 0; start < subjects.length; start += GLOB_BATCH) {
          const batch = subjects.slice(start, start + GLOB_BATCH);
          if (matchedMs >= budgetMs) throw globTooSlow(glob, budgetMs, batch);
          let found: GlobJobResult;
          try {
            const job = { kind: "glob", source: regex.source, flags: regex.flags, glob, subjects: batch } as const;
            found = await pool.run(job, { timeoutMs: budgetMs - matchedMs, clock: "run", signal: stop });
          } catch (err) {
            if (err instanceof ComputeTimeoutError) {
              matchedMs = budgetMs;
              throw globTooSlow(glob, budgetMs, batch);
            }
            if (err instanceof ComputeAbortedError && cap.aborted && !signal?.aborted) throw globCapped(glob, capMs);
            throw err;
          }
          matchedMs += found.ms;
          for (const i of found.matched) matched[start + i] = true;
        }
        return matched;
      } finally {
        heldMs += performance.now() - started;
      }
    },
  };
}

function shownGlob(glob: string): string {
  return JSON.stringify(glob.length > 200 ? `${glob.slice(0, 200)}…` : glob);
}

function globTooSlow(glob: string, budgetMs: number, batch: string[]): Error {
  const where = batch.length === 1 ? batch[0]! : `${batch.length} names from ${batch[0]!.slice(0, 200)}`;
  return new Error(
    `The glob ${shownGlob(glob)} took more than ${budgetMs / 1000} s in all to match names in this call (the last batch: ${where}) and was stopped: ` +
      "a glob of many * wildcards, alternatives or extglobs backtracks on long names. Use a simpler glob.",
  );
}

function globCapped(glob: string, capMs: number): Error {
  return new Error(
    `The glob ${shownGlob(glob)} was not matched within ${capMs / 1000} s in this call, waits for a free background worker included, and was stopped: ` +
      'the workers were busy with other work. Try again, or use an everyday glob such as "*.ts" or "src/**/*.test.ts" (matched at once).',
  );
}
