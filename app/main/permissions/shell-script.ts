// What shell-analysis.ts reads a command line into: the commands, redirections, assignments and
// the reasons no rule may allow it. Types only.
import type { ShellWord } from "./shell-words.ts";

/** A possible working folder: absolute, or null when it cannot be known before the command runs. */
export type Cwd = string | null;

export interface Assignment {
  name: string;
  value: string | null;
}

export interface ShellCommand {
  /** The words as written, the command word first (wrappers included). */
  words: ShellWord[];
  /** `NAME=value` prefixes of this command. */
  assignments: Assignment[];
  /** The folders it may run in. */
  cwds: Cwd[];
  /** Inside a construct no rule allows (a substitution, subshell, loop, function...). */
  nested: boolean;
  /** The command's source text. */
  text: string;
}

export interface ShellRedirect {
  kind: "write" | "read";
  operator: string;
  target: ShellWord;
  cwds: Cwd[];
}

export interface ShellScript {
  source: string;
  commands: ShellCommand[];
  redirects: ShellRedirect[];
  /** Standalone `NAME=value` and `export NAME=value`: they change the commands after them. */
  assignments: Assignment[];
  /** Why no rule may allow this line; empty when every part was understood. */
  opaque: string[];
  /** What the person should notice (look-alike characters). */
  warnings: string[];
}

export interface ShellWhere {
  /** The folder the line starts in (the project folder). */
  cwd: string;
  home: string;
}
