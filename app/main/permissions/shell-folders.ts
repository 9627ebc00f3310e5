// Where the commands of a line run: the possible working folders before and after each statement
// (success, failure, either), `cd`/`pushd` read into the folders after them, and the small list
// operations the walk needs (lists shared, never changed). Pure; never throws.
import path from "node:path";
import { resolvedFrom } from "./path-facts.ts";
import type { Cwd } from "./shell-script.ts";
import type { ShellWord } from "./shell-words.ts";

/** Where later commands run: after this statement succeeded, failed, or either. */
export type Flow = { success: Cwd[]; failure: Cwd[]; any: Cwd[] };

/** The last Flow `stay` made: flows are never changed, and most statements leave the same folders. */
let lastStay: Flow = { success: [], failure: [], any: [] };

/** A flow of these folders: the last `stay` when it is that (most lists of commands leave the folder as it was). */
export function flowOf(success: Cwd[], failure: Cwd[], any: Cwd[]): Flow {
  if (success === any && failure === any) return stay(any);
  return { success, failure, any };
}

/** A statement after which the folder is what it was. */
export function stay(cwds: Cwd[]): Flow {
  if (lastStay.any !== cwds) lastStay = { success: cwds, failure: cwds, any: cwds };
  return lastStay;
}

/** `cd DIR`, `pushd DIR`: later relative paths are judged against DIR (`home` for a bare `cd`). */
export function changeFolder(name: string, words: ShellWord[], cwds: Cwd[], home: string, reasons: Set<string>): Flow {
  // The operands are the words after the name but options (-L, -P, -e, -@).
  let operands = 0;
  let operand: ShellWord | undefined;
  for (let i = 1; i < words.length; i++) {
    const w = words[i]!;
    if (w.value !== null && isCdOption(w.value)) continue;
    operands++;
    operand ??= w;
  }
  let targets: Cwd[];
  if (name === "popd" || operands > 1) {
    reasons.add(`${name} ${name === "popd" ? "returns to a folder" : "has several operands"}: where later commands run is only known when it runs`);
    targets = [null];
  } else if (operand === undefined) {
    targets = [home];
  } else {
    const word = operand;
    if (word.value === null || word.value === "-") {
      if (word.value === "-") reasons.add("cd - returns to a folder that is only known when it runs");
      targets = [null];
    } else {
      const target = word.tilde ? path.join(home, word.value.slice(1)) : word.value;
      targets = new Array<Cwd>(cwds.length);
      for (let i = 0; i < cwds.length; i++) {
        const cwd = cwds[i]!;
        targets[i] = cwd === null && !path.isAbsolute(target) ? null : resolvedFrom(cwd ?? "/", target);
      }
    }
  }
  return { success: targets, failure: cwds, any: union(targets, cwds) };
}

/** `-L`, `-P`, `-e`, `-@` and their groupings (`-LP`): what /^-[LPe@]+$/ matches, without a regex's work. */
function isCdOption(word: string): boolean {
  if (word.length < 2 || word.charCodeAt(0) !== 45) return false;
  for (let i = 1; i < word.length; i++) {
    const c = word[i];
    if (c !== "L" && c !== "P" && c !== "e" && c !== "@") return false;
  }
  return true;
}

/** The folders of both, each once, in order (`a` itself when it already is that). */
export function union(a: Cwd[], b: Cwd[]): Cwd[] {
  if (a === b) return a;
  if (a.length + b.length > 32) return largeUnion(a, b);
  let out: Cwd[] | undefined;
  for (let i = 0; i < a.length; i++) {
    if (out === undefined && a.indexOf(a[i]!) === i) continue;
    out ??= a.slice(0, i);
    if (!out.includes(a[i]!)) out.push(a[i]!);
  }
  for (let i = 0; i < b.length; i++) {
    const cwd = b[i]!;
    if ((out ?? a).includes(cwd)) continue;
    // concat: a list of the exact length (a copy pushed to would grow its storage by 16 slots).
    if (out === undefined) out = a.concat(cwd);
    else out.push(cwd);
  }
  return out ?? a;
}

/** union for many folders (a function of its own: its closure would cost every union a context). */
function largeUnion(a: Cwd[], b: Cwd[]): Cwd[] {
  if (distinct(a) && b.every((cwd) => a.includes(cwd))) return a;
  return [...new Set([...a, ...b])];
}

function distinct(cwds: Cwd[]): boolean {
  for (let i = 1; i < cwds.length; i++) if (cwds.lastIndexOf(cwds[i - 1]!) !== i - 1) return false;
  return true;
}
