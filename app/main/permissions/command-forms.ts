// The forms of one simple command that rules are matched against.
// - allowForm: the command after wrappers that only pass it through (`time`, `nice`, `timeout N`,
//   `env VAR=v`, `command`, `builtin`), with the reason no rule may allow it, if any (it runs its
//   arguments as a command, sets a variable that makes programs run other code, ...).
// - denyForms: every command it may run, found through every wrapper (also `sudo`, `xargs`,
//   `find -exec`, `bash -c '...'`, `eval`, `watch`), each as words whose first is the command's
//   name as bash finds it; `unknown` when one of them is computed when it runs (a variable, a
//   substitution), which then matches every deny rule. Pure apart from parsing nested strings
//   (the parser must be loaded); never throws.
import { EVALUATES_CODE, INTERPRETERS, isCodeRunningVariable, PASS_THROUGH, RUNS_ARGUMENTS, SHELLS, evaluatesCode } from "./command-knowledge.ts";
import { isPlainSedScript, sedScriptOf } from "./sed-scripts.ts";
import { analyzeShell, type Assignment, type ShellCommand, type ShellWord } from "./shell-analysis.ts";

export interface AllowForm {
  words: string[];
  globbed: boolean[];
  /** `NAME=value` prefixes, including those given to `env`. */
  assignments: Assignment[];
  /** Why no rule may allow this command. */
  blocked?: string;
}

const ASSIGNMENT = /^([A-Za-z_][A-Za-z0-9_]*)=([\s\S]*)$/;

export function allowForm(command: ShellCommand): AllowForm {
  return fillAllowForm(command, { words: [], globbed: [], assignments: [] });
}

const sharedAllowForm: AllowForm = { words: [], globbed: [], assignments: [] };

/**
 * allowForm into one object shared by every call: valid until the next call (what it holds may
 * be kept). `same`: a list that may already hold the form's words (the command's own deny form):
 * used as its `words` when it holds exactly them, rather than a copy.
 */
export function sharedAllowFormOf(command: ShellCommand, same?: readonly string[]): AllowForm {
  return fillAllowForm(command, sharedAllowForm, same);
}

function fillAllowForm(command: ShellCommand, out: AllowForm, same?: readonly string[]): AllowForm {
  let words = command.words;
  // The command's own list until a wrapper adds to it (`env A=1 cmd`): then a copy.
  let assignments = command.assignments;
  let blocked: string | undefined;
  for (let i = 0; i < words.length; i++) if (words[i]!.value === null) blocked = "some of its words are computed when it runs";

  for (let guard = 0; guard < 8 && !blocked; guard++) {
    const name = words[0]?.value;
    if (!name || !(name in PASS_THROUGH)) break;
    if (name === "command" && looksUp(words)) break;
    const spec = PASS_THROUGH[name]!;
    let i = 1;
    while (i < words.length) {
      const w = words[i]!.value!;
      // `time` is a keyword: `time VAR=v cmd` sets VAR for cmd, like `env VAR=v cmd`.
      const assignment = name === "env" || name === "time" ? ASSIGNMENT.exec(w) : null;
      if (assignment) {
        if (assignments === command.assignments) assignments = [...assignments];
        assignments.push({ name: assignment[1]!, value: assignment[2]! });
        i++;
      } else if (w === "--") {
        i++;
        break;
      } else if (spec.flags.includes(w) || spec.valued.some((v) => w.startsWith(`${v}=`)) || (name === "nice" && /^-\d+$/.test(w))) {
        i++;
      } else if (spec.valued.includes(w)) {
        i += 2;
      } else if (w.startsWith("-") && w !== "-") {
        blocked = `${name} ${w} is an option Lathe does not judge`;
        break;
      } else break;
    }
    i += spec.positional ?? 0;
    if (blocked || i >= words.length) break;
    words = words.slice(i);
  }

  let anyGlob = false;
  for (let i = 0; i < words.length; i++) anyGlob ||= words[i]!.glob;
  const values = same && holdsValues(same, words) ? (same as string[]) : valuesOf(words);
  const globbed = anyGlob ? words.map((w) => w.glob) : noGlobs(words.length);
  const name = values[0] ?? "";
  if (!blocked && words[0]?.glob) blocked = "its command name has wildcards, which bash expands when it runs";
  if (!blocked) blocked = runsCode(name, values);
  if (!blocked && (EVALUATES_CODE.has(name) || ASSIGNING_BUILTINS.has(name))) blocked = evaluation(name, values);
  for (let i = 0; i < assignments.length && !blocked; i++) {
    if (isCodeRunningVariable(assignments[i]!.name)) blocked = `it sets ${assignments[i]!.name}, which can make programs run other code`;
  }
  out.words = values;
  out.globbed = globbed;
  out.assignments = assignments;
  out.blocked = blocked;
  return out;
}

/**
 * `command -v NAME` and `command -V NAME` only say what NAME is; a `-v` after the command's name
 * is that command's own (`command rm -rf x -v` runs rm). Only the options before it count
 * (clusters included: `-pv`); the words are known (a computed one blocked the form before).
 */
function looksUp(words: readonly ShellWord[]): boolean {
  for (let i = 1; i < words.length; i++) {
    const w = words[i]!.value!;
    if (w === "--" || w === "-" || !w.startsWith("-")) return false;
    if (w.includes("v") || w.includes("V")) return true;
  }
  return false;
}

function valuesOf(words: readonly ShellWord[]): string[] {
  const values: string[] = new Array<string>(words.length);
  for (let i = 0; i < words.length; i++) values[i] = words[i]!.value ?? "";
  return values;
}

function holdsValues(list: readonly string[], words: readonly ShellWord[]): boolean {
  if (list.length !== words.length) return false;
  for (let i = 0; i < words.length; i++) if (list[i] !== (words[i]!.value ?? "")) return false;
  return true;
}

/** Shared, frozen lists of `false` by length: the `globbed` of the many commands without wildcards. */
const NO_GLOBS: boolean[][] = [];
function noGlobs(length: number): boolean[] {
  if (length > 64) return new Array<boolean>(length).fill(false);
  return (NO_GLOBS[length] ??= Object.freeze(new Array<boolean>(length).fill(false)) as boolean[]);
}

/** Why a command that runs other code can never be allowed by a rule, or undefined. */
function runsCode(name: string, words: string[]): string | undefined {
  if (!RUNS_CODE_NAMES.has(name) && !(name in RUNS_ARGUMENTS)) return undefined;
  if (name in RUNS_ARGUMENTS) return `${name} ${RUNS_ARGUMENTS[name]}`;
  if (SHELLS.has(name)) {
    const args = words.slice(1);
    if (args.some((w) => /^-[a-zA-Z]*c[a-zA-Z]*$/.test(w))) return `${name} -c runs a string as shell code`;
    if (readsInput(args)) return `${name} without a script runs the commands it reads from its input`;
  }
  if (name === "env" && words.some((w) => w === "-S" || w.startsWith("--split-string"))) return "env -S runs a string as a command";
  if (name === "find" && words.some((w) => /^-(?:exec|execdir|ok|okdir)$/.test(w))) return "find -exec runs a command for each file it finds";
  if (name === "sed") {
    const script = sedScriptOf(words.slice(1));
    if (script !== undefined && !isPlainSedScript(script)) return "its sed script has commands Lathe does not judge (e runs programs, w writes files, r reads them)";
  }
  return undefined;
}

/**
 * Why a builtin that evaluates some of its arguments can never be allowed, or undefined:
 * `printf -v 'a[$(rm x)]' 1`, `read 'a[$(rm x)]'`, `let ...`, `test -v 'a[$(rm x)]'` run the
 * substitution inside the subscript, and `mapfile -C CODE` runs CODE as it reads.
 */
function evaluation(name: string, words: string[]): string | undefined {
  if ((name === "mapfile" || name === "readarray") && mapfileCallbacks(words, 1).length > 0) return `${name} -C runs shell code as it reads`;
  if (evaluatesCode(name, words.slice(1))) return `${name} evaluates a value as arithmetic or an array subscript, which can run commands`;
  return assignsCodeRunningVariable(name, words);
}

/** The builtins that set the variables they name (`read PATH < f`, `printf -v PATH`, `getopts o PATH`, `mapfile PATH`, `wait -p PATH`). */
const ASSIGNING_BUILTINS = new Set(["read", "printf", "getopts", "mapfile", "readarray", "wait"]);

/**
 * Why a builtin that sets a variable by name sets one that makes the commands after it run other
 * code (`read PATH < f; npm test`), or undefined. Any word naming such a variable counts, also an
 * option's value (`read -p PATH`): it then asks, which is never less safe.
 */
function assignsCodeRunningVariable(name: string, words: string[]): string | undefined {
  if (!ASSIGNING_BUILTINS.has(name)) return undefined;
  for (let i = 1; i < words.length; i++) {
    const w = words[i]!;
    // printf names a variable only with -v, wait with -p (their other words are printed, or jobs).
    if (name === "printf" && words[i - 1] !== "-v" && !w.startsWith("-v")) continue;
    if (name === "wait" && words[i - 1] !== "-p" && !/^-[a-zA-Z]*p/.test(w)) continue;
    // `-vPATH`, `-aPATH`, `-pPATH`: an option with the name in the same word.
    const named = /^-[a-zA-Z]*[vap]([A-Za-z_][A-Za-z0-9_]*)$/.exec(w)?.[1] ?? w;
    if (isCodeRunningVariable(named)) return `${name} sets ${named}, which can make the commands after it run other code`;
  }
  return undefined;
}

/** mapfile's (and readarray's) options that take a value, given in the same word or the next. */
const MAPFILE_VALUED = "dnOsuCc";

/** The code each `-C` of a mapfile or readarray command runs (see optionValues). */
function mapfileCallbacks(args: readonly (string | null)[], from: number): (string | null)[] {
  return optionValues(args, from, MAPFILE_VALUED, "C");
}

/**
 * The values of a command's short option `letter`, from `args[from]` on, read as bash's builtins
 * and getopt read them: `-C VALUE`, `-CVALUE` and clusters (`-tC VALUE`, `-tCVALUE`), where the
 * first option that takes a value (`valued`) ends the cluster (mapfile's `-dC` is the delimiter
 * C). Null when the value is computed or missing. Every word is looked at (also after `--` or
 * an operand): more values than the command takes, never fewer.
 */
function optionValues(args: readonly (string | null)[], from: number, valued: string, letter: string): (string | null)[] {
  const values: (string | null)[] = [];
  for (let i = from; i < args.length; i++) {
    const w = args[i]!;
    if (w === null || w[0] !== "-" || w[1] === "-") continue;
    for (let j = 1; j < w.length; j++) {
      const option = w.charAt(j);
      if (!valued.includes(option)) continue;
      const value = j + 1 < w.length ? w.slice(j + 1) : (args[++i] ?? null);
      if (option === letter) values.push(value);
      break;
    }
  }
  return values;
}

/** The names runsCode looks further at (with RUNS_ARGUMENTS): any other runs no code by itself. */
const RUNS_CODE_NAMES = new Set([...SHELLS, "env", "find", "sed"]);

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

/** Shell options whose value is the next word (`bash -o posix`, `bash --rcfile x`). */
const SHELL_VALUED = new Set(["--rcfile", "--init-file"]);

/**
 * Whether a shell without `-c` reads its commands from its input: no script among its words
 * (`bash`, `bash -x`, `bash -o posix`, `bash +x`, `bash --`) or `-s` before the script. A cluster
 * with `o` or `O` takes the next word as its value (`-eo pipefail`). A computed word may be a
 * script: false (the line cannot be read fully anyway).
 */
function readsInput(args: readonly (string | null)[]): boolean {
  for (let i = 0; i < args.length; i++) {
    const w = args[i]!;
    if (w === null) return false;
    if (w === "--" || w === "-") return i + 1 >= args.length;
    if (SHELL_VALUED.has(w)) {
      i++;
      continue;
    }
    if (!/^[-+][a-zA-Z]+$/.test(w)) {
      if (w.startsWith("--")) continue; // a long option without a value (--norc, --login)
      return false; // the script
    }
    if (w[0] === "-" && w.includes("s")) return true;
    for (const letter of w) if (letter === "o" || letter === "O") i++;
  }
  return true;
}

/**
 * env's `--split-string` as getopt reads it, any unambiguous prefix included (`--s`): 0 when its
 * value is the next word, the value's offset in `w` when given after `=`, -1 for other words.
 */
function splitStringOption(w: string): number {
  if (!w.startsWith("--s")) return -1;
  const equals = w.indexOf("=");
  const option = equals === -1 ? w.slice(2) : w.slice(2, equals);
  if (!"split-string".startsWith(option)) return -1;
  return equals + 1;
}

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
