// The parts of one tool call that the policy judges, gathered before it decides (policy.ts):
// - bash: each simple command (after pass-through wrappers, with the folder it runs in and why no
//   rule may allow it), each redirection that writes or reads a file (judged as a write or read
//   of that path), and the forms deny rules see (every command any part may run);
// - path tools: each path the call touches, read or written, with its real path and whether it
//   is protected.
// Reads the file system (real paths, a package.json's current scripts) through the platform, never
// writes. The judge gives a platform whose answers were fetched off the event loop
// (tools/fs-answers.ts: a hung mount costs a clear error, not the app); without one, the host is
// asked synchronously. Never throws, except when bash is judged before the shell parser was
// loaded. It runs on the main thread, so a package.json is read only when it is a regular file of
// at most PACKAGE_JSON_MAX_CHARS, and only a bounded write or few edits are applied to it; past
// any bound the scripts "cannot tell", which protects the file (the call asks).
import path from "node:path";
import { applyEdits, type TextEdit } from "../tools/edit-match.ts";
import { smallFileTextSync } from "../tools/small-files.ts";
import { isCrlf } from "../tools/file-jobs.ts";
import { toolPathOf } from "../tools/paths.ts";
import { commandName } from "./bash-rules.ts";
import { CHANGES_FOLDER, EFFECT_FREE, evaluatesCode, isCodeRunningVariable } from "./command-knowledge.ts";
import { sharedAllowFormOf } from "./command-forms.ts";
import { sharedDenyFormsOf } from "./deny-forms.ts";
import {
  CallMemo,
  foldsCase,
  hostPlatform,
  memoizedPlatform,
  PACKAGE_JSON_MAX_CHARS,
  packageScriptsChange,
  pathFacts,
  projectRoot,
  protectedPath,
  resolvedFrom,
  type PathFacts,
  type PathPlatform,
  type ProtectedPath,
} from "./path-facts.ts";
import { analyzeShell, type Cwd, type ShellCommand } from "./shell-analysis.ts";

// tool_search (MCP) lists and loads tools; it runs none.
export const READ_ONLY_TOOLS = new Set(["read", "ls", "find", "grep", "tool_search"]);
export const EDIT_TOOLS = new Set(["edit", "write"]);
/** Tools whose rules name paths. */
export const PATH_TOOLS = new Set(["read", "ls", "find", "grep", "edit", "write"]);

export interface CommandPart {
  kind: "command";
  /** The command as written. */
  text: string;
  /** Literal words after pass-through wrappers; a path-like command word is project-relative (`./x`). */
  words: string[];
  globbed: boolean[];
  /** Why no rule may allow it. */
  blocked?: string;
  /** `cd`, `[ ... ]`, `true`: judged by their effect, they need no rule. */
  needsNoRule: boolean;
}

export interface PathPart {
  kind: "path";
  access: "read" | "write";
  /** The tool whose rules allow it: the call's own, or read/write for a bash redirection. */
  tool: string;
  facts: PathFacts;
  /** As shown: project-relative when inside, else absolute. */
  display: string;
  protection?: ProtectedPath;
  viaRedirection: boolean;
}

/** A named thing a rule of another tool matches as a glob (an MCP tool: `github/create_issue`). */
export interface NamePart {
  kind: "name";
  name: string;
}

export type CallPart = CommandPart | PathPart | NamePart;

export interface CallSubjects {
  /** Shown to people: bash's simple commands, or the paths as given. */
  subjects: string[];
  /** The paths as given, absolute (path tools). */
  absolutePaths: string[];
  /** Some path (real, after links) is outside the project. */
  outsideProject: boolean;
  /** No rule may allow the call (bash that Lathe cannot judge part by part); see `reasons`. */
  opaque: boolean;
  command?: string;
  parts: CallPart[];
  /** Why no rule may allow the call as a whole. */
  reasons: string[];
  /** Shown in the dialog whatever happens. */
  warnings: string[];
  /** bash: every command any part may run, as deny rules see them. */
  denyForms: string[][];
  /** bash: a command computed when it runs: it could be one any deny rule names. */
  unknownCommand: boolean;
  foldCase: boolean;
  platform: PathPlatform;
}

export function callSubjects(toolName: string, args: unknown, projectDir: string, hostOrTest: PathPlatform = hostPlatform): CallSubjects {
  const platform = memoizedPlatform(hostOrTest);
  const base: CallSubjects = {
    subjects: [],
    absolutePaths: [],
    outsideProject: false,
    opaque: false,
    parts: [],
    reasons: [],
    warnings: [],
    denyForms: [],
    unknownCommand: false,
    foldCase: foldsCase(platform),
    platform,
  };
  if (toolName === "bash") {
    const command = String((args as { command?: unknown } | null)?.command ?? "");
    base.command = command;
    return bashSubjects(base, command, projectDir, platform);
  }
  const access = EDIT_TOOLS.has(toolName) ? "write" : "read";
  const toolPath = toolPathOf(toolName, args, projectDir);
  if (toolPath !== undefined) {
    const facts = pathFacts(toolPath, projectDir, platform);
    const part: PathPart = { kind: "path", access, tool: toolName, facts, display: display(facts), viaRedirection: false };
    if (access === "write") part.protection = protectedPath(facts, platform, packageJsonChange(toolName, args, facts, platform));
    base.parts.push(part);
    base.subjects.push(part.display);
    base.absolutePaths.push(facts.given);
  }
  base.outsideProject = base.parts.some((p) => p.kind === "path" && !p.facts.inside);
  base.warnings.push(...base.parts.flatMap((p) => (p.kind === "path" && p.protection ? [p.protection.warning] : [])));
  return base;
}

/** Subjects of a tool whose rules name things by glob (the "mcp" pseudo-tool's `server/tool`). */
export function namedSubjects(names: string[], platform: PathPlatform = hostPlatform): CallSubjects {
  return {
    subjects: names,
    absolutePaths: names,
    outsideProject: false,
    opaque: false,
    parts: names.map((name) => ({ kind: "name", name })),
    reasons: [],
    warnings: [],
    denyForms: [],
    unknownCommand: false,
    foldCase: false,
    platform,
  };
}

function display(facts: PathFacts): string {
  return facts.givenRelative ?? facts.given;
}

function bashSubjects(s: CallSubjects, command: string, projectDir: string, platform: PathPlatform): CallSubjects {
  const project = projectRoot(projectDir, platform);
  const root = project.root;
  const known = new CallMemo<PathFacts>();
  const factsOf = (p: string): PathFacts => {
    let facts = known.get(p);
    if (!facts) known.set(p, (facts = pathFacts(p, root, platform, project)));
    return facts;
  };
  const script = analyzeShell(command, { cwd: root, home: platform.home });
  for (let i = 0; i < script.opaque.length; i++) s.reasons.push(script.opaque[i]!);
  for (let i = 0; i < script.warnings.length; i++) s.warnings.push(script.warnings[i]!);
  for (const a of script.assignments) {
    if (isCodeRunningVariable(a.name)) s.reasons.push(`sets ${a.name}, which can make the commands after it run other code`);
  }
  const writes: PathPart[] = [];
  for (const r of script.redirects) {
    for (const cwd of r.cwds) {
      if (cwd === null && !(r.target.value!.startsWith("/") || r.target.tilde)) {
        s.reasons.push(`${r.kind === "write" ? "writes" : "reads"} ${r.target.value} in a folder only known when it runs`);
        continue;
      }
      const target = r.target.tilde ? path.join(platform.home, r.target.value!.slice(1)) : resolvedFrom(cwd ?? "/", r.target.value!);
      const facts = factsOf(target);
      const part: PathPart = { kind: "path", access: r.kind, tool: r.kind === "write" ? "write" : "read", facts, display: display(facts), viaRedirection: true };
      if (r.kind === "write") {
        part.protection = protectedPath(facts, platform, undefined);
        writes.push(part);
      }
      s.parts.push(part);
    }
  }
  const budget = { parsed: 0 };
  for (let i = 0; i < script.commands.length; i++) {
    const c = script.commands[i]!;
    const forms = sharedDenyFormsOf(c.words, s.denyForms, budget);
    s.unknownCommand ||= forms.unknown;
    // The command's own form (its words), which its allow form shares when it holds the same words.
    const own = forms.first < s.denyForms.length ? s.denyForms[forms.first] : undefined;
    for (let j = forms.first; j < s.denyForms.length; j++) {
      const form = s.denyForms[j]!;
      form[0] = commandName(form[0]!, s.foldCase); // the form is this call's own
    }
    if (!c.nested) s.parts.push(commandPart(c, factsOf, platform, writes, own));
  }
  for (let i = 0; i < s.parts.length; i++) {
    const p = s.parts[i]!;
    if (p.kind === "path" && p.protection) s.warnings.push(p.protection.warning);
    else if (p.kind === "command") s.subjects.push(p.text);
    if (p.kind === "path" && !p.facts.inside) s.outsideProject = true;
  }
  s.opaque = s.reasons.length > 0;
  return s;
}

function commandPart(c: ShellCommand, factsOf: (p: string) => PathFacts, platform: PathPlatform, writes: PathPart[], own?: string[]): CommandPart {
  const form = sharedAllowFormOf(c, own);
  const name = form.words[0] ?? "";
  const part: CommandPart = {
    kind: "command",
    text: c.text,
    words: form.words,
    globbed: form.globbed,
    blocked: form.blocked,
    needsNoRule:
      !form.blocked &&
      form.assignments.length === 0 &&
      (CHANGES_FOLDER.has(name) || (EFFECT_FREE.has(name) && !form.globbed.some(Boolean) && !evaluatesCode(name, form.words.slice(1)))),
  };
  if (part.needsNoRule || part.blocked) return part;
  const where = folderProblem(c.cwds, factsOf);
  if (where) {
    part.blocked = where;
    return part;
  }
  if (name.includes("/")) programByPath(part, name, c, factsOf, platform, writes);
  return part;
}

/** A program named by its path: the same word names another file after a `cd`. */
function programByPath(part: CommandPart, name: string, c: ShellCommand, factsOf: (p: string) => PathFacts, platform: PathPlatform, writes: PathPart[]): void {
  const files = new Set(c.cwds.map((cwd) => factsOf(path.resolve(cwd!, name))));
  const shown = new Set([...files].map((f) => (f.relative !== null ? `./${f.relative}` : f.real)));
  if (shown.size > 1) part.blocked = "the program it runs depends on whether an earlier cd succeeded";
  else part.words = [[...shown][0]!, ...part.words.slice(1)];
  const fold = foldsCase(platform);
  const same = (a: string, b: string) => (fold ? a.toLowerCase() === b.toLowerCase() : a === b);
  const written = writes.find((w) => [...files].some((f) => same(f.real, w.facts.real)));
  if (written) part.blocked = `it runs ${written.display}, which this command line writes`;
}

function folderProblem(cwds: Cwd[], factsOf: (p: string) => PathFacts): string | undefined {
  for (const cwd of cwds) {
    if (cwd === null) return "it runs in a folder only known when it runs";
    const facts = factsOf(cwd);
    if (!facts.inside) return `it runs in ${facts.real}, outside the project`;
  }
  return undefined;
}

/** The most edits of package.json applied to see whether its scripts change; more cannot tell. */
export const PACKAGE_JSON_MAX_EDITS = 256;
/**
 * Characters the edits of package.json may search in all (each edit searches the text as the edits
 * before it left it): a search takes up to 7 to 15 ms a MiB when the old text's first character
 * is everywhere in the file. A package.json of 4 KB takes the 256 edits; one of 256 KiB, 4.
 */
export const PACKAGE_JSON_EDIT_SEARCH = 1024 * 1024;

/**
 * Whether a write or edit of package.json changes its scripts (undefined: cannot tell, as for a
 * file that is not a regular one, or a write, file or edits past the bounds above).
 */
function packageJsonChange(toolName: string, args: unknown, facts: PathFacts, platform: PathPlatform): boolean | undefined {
  if (path.basename(facts.real).toLowerCase() !== "package.json") return undefined;
  const a = (args ?? {}) as { content?: unknown; edits?: unknown };
  // The arguments first: what cannot be judged needs no read.
  if (toolName === "write") {
    if (typeof a.content !== "string" || a.content.length > PACKAGE_JSON_MAX_CHARS) return undefined;
  } else if (!Array.isArray(a.edits) || a.edits.length > PACKAGE_JSON_MAX_EDITS) return undefined;
  // Not a regular file (a FIFO named package.json is never waited on), too long, growing or
  // unreadable: undefined, it cannot tell (fs-answers.ts).
  const before = (platform.smallFileText ?? smallFileTextSync)(facts.real, PACKAGE_JSON_MAX_CHARS);
  if (before === undefined) return undefined;
  if (toolName === "write") return packageScriptsChange(before, a.content as string);
  if (before === null) return undefined;
  // As the edit tool applies them (file-jobs.ts): every edit matched in the original text with LF
  // line breaks, not one after the other (edits applied in turn could show one script while the
  // tool writes another). Each must be found exactly, once: a fuzzy match (or the tool's search
  // for the closest text, seconds long) is not tried here: it cannot tell.
  const crlf = isCrlf(before);
  const original = crlf ? before.replaceAll("\r\n", "\n") : before;
  const edits: TextEdit[] = [];
  let search = PACKAGE_JSON_EDIT_SEARCH;
  let grows = 0;
  for (const edit of a.edits as { oldText?: unknown; newText?: unknown }[]) {
    if (typeof edit?.oldText !== "string" || typeof edit.newText !== "string" || edit.oldText === "") return undefined;
    search -= original.length;
    grows += edit.newText.length - edit.oldText.length;
    if (search < 0 || original.length + grows > PACKAGE_JSON_MAX_CHARS) return undefined;
    const oldText = crlf ? edit.oldText.replaceAll("\r\n", "\n") : edit.oldText;
    const at = original.indexOf(oldText);
    if (at === -1 || original.indexOf(oldText, at + 1) !== -1) return undefined;
    edits.push({ oldText, newText: crlf ? edit.newText.replaceAll("\r\n", "\n") : edit.newText });
  }
  try {
    return packageScriptsChange(before, applyEdits(original, edits).content);
  } catch {
    return undefined; // overlapping edits, or none that changes anything: the tool refuses them too
  }
}
