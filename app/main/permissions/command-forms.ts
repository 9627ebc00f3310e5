// The allow form of one simple command, which allow rules are matched against: the command after
// wrappers that only pass it through (`time`, `nice`, `timeout N`, `env VAR=v`, `command`,
// `builtin`), with the reason no rule may allow it, if any (it runs its arguments as a command,
// sets a variable that makes programs run other code, ...). Deny rules are matched against the
// deny forms (deny-forms.ts). Pure; never throws.
import { EVALUATES_CODE, isCodeRunningVariable, PASS_THROUGH, RUNS_ARGUMENTS, SHELLS, evaluatesCode } from "./command-knowledge.ts";
import { ASSIGNMENT, mapfileCallbacks, readsInput } from "./command-options.ts";
import { isPlainSedScript, sedScriptOf } from "./sed-scripts.ts";
import type { Assignment, ShellCommand, ShellWord } from "./shell-analysis.ts";

export interface AllowForm {
  words: string[];
  globbed: boolean[];
  /** `NAME=value` prefixes, including those given to `env`. */
  assignments: Assignment[];
  /** Why no rule may allow this command. */
  blocked?: string;
}

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

/** The names runsCode looks further at (with RUNS_ARGUMENTS): any other runs no code by itself. */
const RUNS_CODE_NAMES = new Set([...SHELLS, "env", "find", "sed"]);
