// The deny forms of one simple command: every command it may run, found through every wrapper
// (also `sudo`, `xargs`, `find -exec`, `bash -c '...'`, `eval`, `watch`), each as words whose
// first is the command's name as bash finds it; `unknown` when one of them is computed when it
// runs (a variable, a substitution), which then matches every deny rule. Pure apart from parsing
// nested strings (the parser must be loaded); never throws.
import { EVALUATES_CODE, evaluatesCode, INTERPRETERS, PASS_THROUGH, RUNS_ARGUMENTS, SHELLS } from "./command-knowledge.ts";
import { ASSIGNMENT, mapfileCallbacks, optionValues, readsInput, splitStringOption } from "./command-options.ts";
import { analyzeShell, type ShellWord } from "./shell-analysis.ts";

export interface DenyForms {
  /** The forms found, after those `into` held before (see denyForms). */
  forms: string[][];
  /** Where this command's forms start in `forms`. */
  first: number;
  /** A command it may run is computed when it runs: every deny rule could match it. */
  unknown: boolean;
}

/** Characters of shell code parsed so far inside the commands of one call (`bash -c`, `eval`, `watch`): see MAX_PARSED_CHARS. */
export interface ParseBudget {
  parsed: number;
}
const budgets = new WeakMap<DenyForms, ParseBudget>();

const MAX_NESTING = 4;
/** More forms than this (`nice nice nice ...`) is treated as unknown rather than enumerated. */
const MAX_FORMS = 400;
/**
 * Shell code inside the commands of one call parsed at most (their strings, nested ones
 * included); past it the rest is unknown. `watch` joins each suffix of its operands into code: with 16,000 operands that
 * was 128 million characters to parse, minutes of the main thread and then out of memory.
 */
const MAX_PARSED_CHARS = 64 * 1024;

/** Every command this one may run (itself included), for deny rules: added to `into`, when given. */
export function denyForms(words: readonly ShellWord[], depth = 0, into: string[][] = []): DenyForms {
  return fillDenyForms(words, depth, { forms: into, first: into.length, unknown: false });
}

const sharedDenyForms: DenyForms = { forms: [], first: 0, unknown: false };

/**
 * denyForms into one object shared by every call: valid until the next call (its forms may be
 * kept). `budget`: shared by the commands of one line, so that many commands cannot each parse
 * MAX_PARSED_CHARS.
 */
export function sharedDenyFormsOf(words: readonly ShellWord[], into: string[][], budget?: ParseBudget): DenyForms {
  sharedDenyForms.forms = into;
  sharedDenyForms.first = into.length;
  sharedDenyForms.unknown = false;
  return fillDenyForms(words, 0, sharedDenyForms, budget);
}

function fillDenyForms(words: readonly ShellWord[], depth: number, out: DenyForms, budget: ParseBudget = { parsed: 0 }): DenyForms {
  budgets.set(out, budget);
  // A command name with wildcards is whatever file bash finds: unknown.
  if (words[0]?.glob) out.unknown = true;
  const values: (string | null)[] = new Array<string | null>(words.length);
  for (let i = 0; i < words.length; i++) values[i] = words[i]!.value;
  collect(values, out, depth);
  return out;
}

/** The commands a string of shell code runs (`bash -c CODE`, `eval`, `trap CODE`), collected at depth + 1. */
function runShellString(text: string | null | undefined, out: DenyForms, depth: number): void {
  if (text === null || text === undefined) return void (out.unknown = true);
  const budget = budgets.get(out) ?? { parsed: 0 };
  if (budget.parsed + text.length > MAX_PARSED_CHARS) return void (out.unknown = true);
  budget.parsed += text.length;
  budgets.set(out, budget);
  const inner = analyzeShell(text, { cwd: "/", home: "/" });
  if (inner.opaque.some((r) => r.startsWith("is longer than"))) out.unknown = true;
  for (const command of inner.commands)
    collect(
      command.words.map((w) => w.value),
      out,
      depth + 1,
    );
}

/** The commands collect looks inside by name (with EVALUATES_CODE, PASS_THROUGH and RUNS_ARGUMENTS). */
const LOOKED_INSIDE = new Set([...SHELLS, "su", "script", "eval", "trap", "alias", "mapfile", "readarray", "watch", "find"]);

/** Collects `words` and every command inside it; `words` becomes a form (the caller's no more). */
function collect(words: (string | null)[], out: DenyForms, depth: number): void {
  if (words.length === 0) return;
  const name = words[0]!;
  if (name === null || name === "{}" || (depth > 0 && /[*?[]/.test(name))) {
    out.unknown = true;
    return;
  }
  if (out.forms.length - out.first >= MAX_FORMS) {
    out.unknown = true;
    return;
  }
  // The form is the caller's to change (its name is normalized there): `words` is this call's own.
  out.forms.push(words.includes(null) ? words.map((w) => w ?? "\u0000") : (words as string[]));
  if (depth >= MAX_NESTING) {
    if (INTERPRETERS.has(name) || name in RUNS_ARGUMENTS || name in PASS_THROUGH) out.unknown = true;
    return;
  }
  // Every name looked at below is one of these: any other command runs no other (nothing made).
  if (!LOOKED_INSIDE.has(name) && !EVALUATES_CODE.has(name) && !(name in PASS_THROUGH) && !(name in RUNS_ARGUMENTS)) return;
  collectInside(name, words, out, depth);
}

/** The commands inside one that runs others (a function of its own: its closures would cost every collect a context). */
function collectInside(name: string, words: (string | null)[], out: DenyForms, depth: number): void {
  const args = words.slice(1);
  const shellString = (text: string | null | undefined) => runShellString(text, out, depth);

  if (name === "busybox") {
    // `busybox rm -rf x` runs its applet rm; `busybox sh -c CODE` a shell.
    const applet = args.findIndex((w) => w === null || !w.startsWith("-"));
    if (applet === -1) out.unknown = true;
    else collect(args.slice(applet), out, depth + 1);
    return;
  }
  if (SHELLS.has(name) || name === "su" || name === "script") {
    const c = args.findIndex((w) => w !== null && /^-[a-zA-Z]*c[a-zA-Z]*$/.test(w));
    if (c >= 0) shellString(args.slice(c + 1).find((w) => w === null || !w.startsWith("-")));
    else if (SHELLS.has(name) && readsInput(args)) out.unknown = true;
    if (name !== "su" && name !== "script") return;
  }
  if (name === "env") {
    // -S splits a string into a command and its arguments (`env -S 'rm -rf x'`), with quotes and
    // ${VAR} much as shell code has them; its own escapes (`\_` separates words) are not read.
    const strings = optionValues(args, 0, "uCS", "S");
    for (let i = 0; i < args.length; i++) {
      const w = args[i]!;
      const long = w === null ? -1 : splitStringOption(w);
      if (long > 0) strings.push(w!.slice(long));
      else if (long === 0) strings.push(args[++i] ?? null);
    }
    for (let i = 0; i < strings.length; i++) {
      const text = strings[i]!;
      if (text !== null && text.includes("\\")) out.unknown = true;
      shellString(text);
    }
  }
  if (name === "eval") return shellString(args.some((w) => w === null) ? null : args.join(" "));
  if (evaluatesCode(name, args)) out.unknown = true;
  if (name === "trap") {
    // trap's first operand is code run later, when the signal comes (`trap 'rm x' EXIT`).
    const code = args.find((w) => w === null || !w.startsWith("-"));
    if (code !== undefined) shellString(code);
    return;
  }
  if (name === "alias") {
    // `alias npm='rm x;'`: the value is code that a later word runs.
    for (const w of args) {
      if (w === null) out.unknown = true;
      else if (w.includes("=")) shellString(w.slice(w.indexOf("=") + 1));
    }
    return;
  }
  if (name === "mapfile" || name === "readarray") {
    // -C names code run every -c lines (`mapfile -C 'rm x' -c 1 a`, `mapfile -tC 'rm x' a`).
    const callbacks = mapfileCallbacks(args, 0);
    for (let i = 0; i < callbacks.length; i++) shellString(callbacks[i]);
    return;
  }
  if (name === "watch") {
    // watch joins its operands into shell code (`watch -n 1 rm x`: the 1 is the option's value).
    const operands = args.filter((w) => w === null || !w.startsWith("-"));
    const lastComputed = operands.lastIndexOf(null);
    // Each suffix's length known before it is joined: past the budget, no join and no parse.
    let length = operands.reduce((sum: number, w) => sum + (w?.length ?? 0) + 1, -1);
    for (let i = 0; i < operands.length; i++) {
      if (i <= lastComputed) shellString(null);
      else if ((budgets.get(out)?.parsed ?? 0) + length > MAX_PARSED_CHARS) return void (out.unknown = true);
      else shellString(operands.slice(i).join(" "));
      length -= (operands[i]?.length ?? 0) + 1;
    }
    return;
  }
  if (name === "find") {
    // Where each -exec's command ends (the next `;` or `+`), found in one pass from the end.
    const ends = new Array<number>(args.length);
    for (let j = args.length - 1, next = args.length; j >= 0; j--) {
      ends[j] = next;
      if (args[j] === ";" || args[j] === "+") next = j;
    }
    for (let i = 0; i < args.length; i++) {
      if (args[i] && /^-(?:exec|execdir|ok|okdir)$/.test(args[i]!)) {
        if (out.forms.length - out.first >= MAX_FORMS) return void (out.unknown = true);
        collect(args.slice(i + 1, ends[i]), out, depth + 1);
      }
    }
    return;
  }
  if (name in PASS_THROUGH || name in RUNS_ARGUMENTS) {
    // Which word starts the inner command depends on each wrapper's options; trying every
    // operand finds it wherever it is (a deny rule may then also match an option's value).
    let first = true;
    for (let i = 0; i < args.length; i++) {
      const w = args[i] ?? null;
      if (w !== null && (w.startsWith("-") || ASSIGNMENT.test(w))) continue;
      if (w === null && first) out.unknown = true;
      first = false;
      // Past the forms limit collect adds nothing: stop before copying the rest once more.
      if (out.forms.length - out.first >= MAX_FORMS) return void (out.unknown = true);
      if (w !== null) collect(args.slice(i), out, depth + 1);
    }
    if (first && name === "xargs") out.forms.push(["echo"]);
  }
}
