// Whether a sed script given on the command line only edits text: its commands are all among
// those that read, print, delete, substitute or move through lines (s with the flags g, p, i, I, m,
// M or a number; y; p, P, d, D, q, Q, =, n, N, g, G, h, H, x, l, z; blocks and addresses). sed's
// `e` command and `s///e` run programs, `w`, `W` and `s///w` write files, `r` and `R` read them:
// a script with any of these, or anything else this reading does not know (labels, branches,
// a, i and c text), is not plain, and no rule's `*` covers it. Read strictly, never guessed:
// linear in the script; never throws.

/** sed's options that take a value (the script is then not that value). */
const VALUED = new Set(["-l", "--line-length"]);
/**
 * Whether `w` gives the script (-e, -f, in a cluster too, or a start of --expression or --file):
 * such a word makes the command ask already (command-knowledge.ts), so the operands need no
 * reading. Only those: `--follow-symlinks` gives none, and the first operand is still the script.
 */
function givesScript(w: string): boolean {
  if (!w.startsWith("--")) return /^-[a-zA-Z]*[ef]/.test(w);
  const name = w.split("=", 1)[0]!;
  return name.length >= 3 && ("--expression".startsWith(name) || "--file".startsWith(name));
}

/** The script of a sed command line when it has no -e or -f (the first operand), else undefined. */
export function sedScriptOf(args: readonly string[]): string | undefined {
  if (args.some(givesScript)) return undefined;
  for (let i = 0; i < args.length; i++) {
    const w = args[i]!;
    if (w === "--") return args[i + 1];
    if (VALUED.has(w)) {
      i++;
      continue;
    }
    if (w.startsWith("-") && w !== "-") continue;
    return w;
  }
  return undefined;
}

const SIMPLE_COMMANDS = new Set(["p", "P", "d", "D", "=", "n", "N", "g", "G", "h", "H", "x", "l", "z"]);

export function isPlainSedScript(script: string): boolean {
  let i = 0;
  const n = script.length;
  const skipSpace = () => {
    while (i < n && (script[i] === " " || script[i] === "\t")) i++;
  };
  /** Past a delimited part ending at an unescaped `delimiter`; false when it does not end. */
  const delimited = (delimiter: string): boolean => {
    while (i < n && script[i] !== delimiter) {
      if (script[i] === "\n") return false;
      i += script[i] === "\\" ? 2 : 1;
    }
    if (i >= n) return false;
    i++;
    return true;
  };
  const address = (): boolean => {
    if (script[i] === "$") i++;
    else if (script[i] === "/") {
      i++;
      if (!delimited("/")) return false;
      while (script[i] === "I" || script[i] === "M") i++;
    } else if (/[0-9]/.test(script[i] ?? "")) {
      while (/[0-9~]/.test(script[i] ?? "")) i++;
    }
    return true;
  };
  while (i < n) {
    skipSpace();
    if (script[i] === ";" || script[i] === "\n" || script[i] === "}") {
      i++;
      continue;
    }
    if (i >= n) break;
    if (!address()) return false;
    skipSpace();
    if (script[i] === ",") {
      i++;
      skipSpace();
      if (script[i] === "+" || script[i] === "~") i++;
      if (!address()) return false;
      skipSpace();
    }
    if (script[i] === "!") {
      i++;
      skipSpace();
    }
    const command = script[i];
    i++;
    if (command === "{") continue;
    if (command === "s" || command === "y") {
      const delimiter = script[i];
      if (delimiter === undefined || delimiter === "\n" || delimiter === "\\") return false;
      i++;
      if (!delimited(delimiter) || !delimited(delimiter)) return false;
      if (command === "s") while (i < n && /[gpiImM0-9]/.test(script[i]!)) i++;
    } else if (command === "q" || command === "Q") {
      skipSpace();
      while (/[0-9]/.test(script[i] ?? "")) i++;
    } else if (command === undefined || !SIMPLE_COMMANDS.has(command)) {
      return false;
    }
    skipSpace();
    if (i < n && script[i] !== ";" && script[i] !== "\n" && script[i] !== "}") return false;
  }
  return true;
}
