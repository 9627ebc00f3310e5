// How some commands read their own options, as the judge needs them (command-forms.ts,
// deny-forms.ts): a builtin's short option with its value (mapfile -C), whether a shell reads its
// commands from its input, env's --split-string. Pure; never throws.

/** `NAME=value` as an assignment word (`env NAME=value`, `time NAME=value`). */
export const ASSIGNMENT = /^([A-Za-z_][A-Za-z0-9_]*)=([\s\S]*)$/;

/** mapfile's (and readarray's) options that take a value, given in the same word or the next. */
const MAPFILE_VALUED = "dnOsuCc";

/** The code each `-C` of a mapfile or readarray command runs (see optionValues). */
export function mapfileCallbacks(args: readonly (string | null)[], from: number): (string | null)[] {
  return optionValues(args, from, MAPFILE_VALUED, "C");
}

/**
 * The values of a command's short option `letter`, from `args[from]` on, read as bash's builtins
 * and getopt read them: `-C VALUE`, `-CVALUE` and clusters (`-tC VALUE`, `-tCVALUE`), where the
 * first option that takes a value (`valued`) ends the cluster (mapfile's `-dC` is the delimiter
 * C). Null when the value is computed or missing. Every word is looked at (also after `--` or
 * an operand): more values than the command takes, never fewer.
 */
export function optionValues(args: readonly (string | null)[], from: number, valued: string, letter: string): (string | null)[] {
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

/** Shell options whose value is the next word (`bash -o posix`, `bash --rcfile x`). */
const SHELL_VALUED = new Set(["--rcfile", "--init-file"]);

/**
 * Whether a shell without `-c` reads its commands from its input: no script among its words
 * (`bash`, `bash -x`, `bash -o posix`, `bash +x`, `bash --`) or `-s` before the script. A cluster
 * with `o` or `O` takes the next word as its value (`-eo pipefail`). A computed word may be a
 * script: false (the line cannot be read fully anyway).
 */
export function readsInput(args: readonly (string | null)[]): boolean {
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
export function splitStringOption(w: string): number {
  if (!w.startsWith("--s")) return -1;
  const equals = w.indexOf("=");
  const option = equals === -1 ? w.slice(2) : w.slice(2, equals);
  if (!"split-string".startsWith(option)) return -1;
  return equals + 1;
}
