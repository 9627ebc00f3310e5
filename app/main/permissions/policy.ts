// The permission policy: a pure decision (allow, deny or ask) for one tool call, from its parts
// (call-parts.ts: `callSubjects`), the stored rules and the permission mode. In order:
// 1. A deny rule matching any part denies the whole call, at every scope and in every mode. A bash
//    deny rule matches any command a part may run (bash-rules.ts); a path deny rule matches the
//    path as given or as it really is, for every tool that reads or writes it (redirections too).
// 2. A bash line whose command name is computed when it runs could be one a deny rule names:
//    when any bash deny rule exists it is asked about, even in full auto.
// 3. Every part must be allowed: a command by an allow rule (never when `blocked` or the line is
//    opaque), a path by a rule of its tool (edit and write rules both cover writes) or by the mode
//    or the defaults (read-only tools inside the project; auto-edit: writes inside the project).
//    Protected files (.git/, hooks, task files) are never written by rules or auto-edit.
// 4. Otherwise the user is asked, with the reasons.
// `decide` and `proposeRule` are the public shape other modes (a sandboxed mode) build on:
// `modeAllows` is the one place where a mode admits a part no rule allowed.
import { homedir } from "node:os";
import path from "node:path";
import picomatch from "picomatch";
import type { PermissionRule } from "../store/index.ts";
import { allowMatches, denyMatches, describeBashRule, legacyTextMatches, parseBashPattern, quotePatternWord } from "./bash-rules.ts";
import { callSubjects, EDIT_TOOLS, PATH_TOOLS, READ_ONLY_TOOLS, type CallPart, type CallSubjects, type CommandPart, type PathPart } from "./call-parts.ts";
import { globTest } from "./path-globs.ts";
import { CODE_RUNNING_OPTIONS, destructiveWarning, HAS_SUBCOMMANDS, INTERPRETERS, isCodeRunningOption, RUNS_CODE_SUBCOMMANDS } from "./command-knowledge.ts";

export { callSubjects, EDIT_TOOLS, READ_ONLY_TOOLS, type CallPart, type CallSubjects };

export type PermissionMode = "ask" | "auto-edit" | "full-auto" | "sandboxed-auto";

export interface Decision {
  action: "allow" | "deny" | "ask";
  by: "rule" | "mode" | "default";
  /** The deny rule, or the first allow rule used. */
  rule?: PermissionRule;
  /** For a denial: the message the model gets. */
  reason?: string;
  /** For "ask": why it was not allowed, one line each, for the dialog. */
  reasons?: string[];
  /** Things the person should see whatever the decision (protected files, look-alike characters). */
  warnings?: string[];
  /**
   * A question no mode may skip (sandbox-mode.ts keeps it): a protected file would be written, or
   * a computed command name could be one a deny rule forbids.
   */
  firm?: boolean;
}

/**
 * Text matching of one simple command's source against a pattern where `*` matches any text (a
 * trailing ` *` also nothing): what the sandbox's command lists (network commands, commands that
 * need the real machine) use. Permission rules are matched word by word instead (bash-rules.ts).
 */
export function commandMatches(pattern: string, command: string): boolean {
  return legacyTextMatches(pattern, command.trim().replace(/\s+/g, " "));
}

/** Whether a mode admits a part that no rule allowed. */
export function modeAllows(mode: string, toolName: string, part: CallPart | "opaque" | "no-parts"): boolean {
  if (mode === "full-auto") return true;
  if (part === "opaque") return false;
  if (part === "no-parts") return READ_ONLY_TOOLS.has(toolName) || (mode === "auto-edit" && EDIT_TOOLS.has(toolName));
  if (part.kind === "command") return part.needsNoRule;
  if (part.kind === "name") return false;
  if (part.access === "read") return part.facts.inside;
  return mode === "auto-edit" && part.facts.inside && !part.protection;
}

/** What `decide` returns: a Decision with its reasons and warnings always listed. */
export type PolicyDecision = Decision & { reasons: string[]; warnings: string[] };

export function decide(input: { toolName: string; subjects: CallSubjects; rules: readonly PermissionRule[]; mode: PermissionMode | string }): PolicyDecision {
  const { toolName, subjects: s, rules, mode } = input;
  const warnings = s.warnings.slice();

  for (let i = 0; i < rules.length; i++) {
    const rule = rules[i]!;
    if (rule.action !== "deny") continue;
    const hit = denyHit(rule, toolName, s);
    if (hit !== undefined) {
      return {
        action: "deny",
        by: "rule",
        rule,
        reason: `Denied by the rule "${rule.tool}: ${rule.pattern}" (${rule.scope})${hit ? `: ${hit}` : ""}.`,
        reasons: [],
        warnings,
      };
    }
  }
  // With a bash deny rule, a command line that cannot be read fully before it runs is asked about
  // in every mode: what it runs could be what the rule forbids (a computed name, a code string
  // given to trap or alias, an array subscript that bash evaluates, a brace or continuation trick).
  if (toolName === "bash" && (s.unknownCommand || s.opaque) && rules.some((r) => r.action === "deny" && (r.tool === "bash" || r.tool === "*"))) {
    const why = s.unknownCommand
      ? "The command it runs is computed when it runs (a variable, a substitution or a code string), so it could be one a deny rule forbids."
      : `It cannot be read fully before it runs (it ${s.reasons[0] ?? "is not plain bash"}), so it could run a command a deny rule forbids.`;
    return { action: "ask", by: "default", reasons: [why], warnings, firm: true };
  }

  const reasons: string[] = s.reasons.map((r) => `No rule can allow it: it ${r}.`);
  // The first allow rule used (the only one a decision names), and whether any was.
  let used: PermissionRule | undefined;
  let byMode = false;
  let ok = true;
  if (s.opaque) {
    if (modeAllows(mode, toolName, "opaque")) byMode = true;
    else ok = false;
  }
  if (s.parts.length === 0 && toolName !== "bash") {
    const rule = rules.find((r) => r.action === "allow" && (r.tool === toolName || r.tool === "*") && (r.pattern === "*" || r.pattern === "**"));
    if (rule) used ??= rule;
    else if (modeAllows(mode, toolName, "no-parts")) byMode = true;
    else ok = false;
  }
  for (let i = 0; i < s.parts.length; i++) {
    const part = s.parts[i]!;
    const rule = s.opaque ? undefined : allowRuleFor(part, toolName, rules, s);
    if (rule) {
      used ??= rule;
      continue;
    }
    if (modeAllows(mode, toolName, part)) {
      byMode ||= !(part.kind === "command" && part.needsNoRule) && !(part.kind === "path" && part.access === "read" && part.facts.inside);
      continue;
    }
    ok = false;
    if (!s.opaque) reasons.push(whyNot(part, toolName));
  }
  if (ok) return { action: "allow", by: used ? "rule" : byMode ? "mode" : "default", rule: used, reasons: [], warnings };
  let firm = false;
  for (let i = 0; i < s.parts.length && !firm; i++) {
    const p = s.parts[i]!;
    firm = p.kind === "path" && p.protection !== undefined;
  }
  const decision: PolicyDecision = { action: "ask", by: "default", reasons: distinctInPlace(reasons), warnings };
  if (firm) decision.firm = true;
  return decision;
}

/** The list without repeats, first occurrences kept in order (the few reasons of a call: no Set made). */
function distinctInPlace(list: string[]): string[] {
  if (list.length > 32) return [...new Set(list)]; // a line of thousands of commands: no quadratic work
  let kept = 0;
  for (let i = 0; i < list.length; i++) {
    const item = list[i]!;
    let seen = false;
    for (let j = 0; j < kept && !seen; j++) seen = list[j] === item;
    if (!seen) list[kept++] = item;
  }
  list.length = kept;
  return list;
}

function whyNot(part: CallPart, toolName: string): string {
  if (part.kind === "command") return part.blocked ? `${part.text}: no rule can allow it, because ${part.blocked}.` : `${part.text}: no rule allows it.`;
  if (part.kind === "name") return `No ${toolName} rule allows ${part.name}.`;
  const verb = part.access === "write" ? "writes" : "reads";
  if (part.protection) return `It ${verb} ${part.display}, a protected file: ${part.protection.reason}`;
  if (!part.facts.inside) return `It ${verb} ${part.display}, outside the project${part.facts.real !== part.facts.given ? ` (really ${part.facts.real})` : ""}.`;
  return `It ${verb} ${part.display}${part.viaRedirection ? " through a redirection" : ""}, and no ${part.access === "write" ? "write or edit" : toolName} rule allows that.`;
}

function denyHit(rule: PermissionRule, toolName: string, s: CallSubjects): string | undefined {
  const anyTool = rule.tool === "*";
  if (anyTool && (rule.pattern === "*" || rule.pattern === "**")) return "";
  if ((rule.tool === "bash" || anyTool) && toolName === "bash") {
    const pattern = parseBashPattern(rule.pattern);
    for (let i = 0; i < s.denyForms.length; i++) {
      const form = s.denyForms[i]!;
      if (denyMatches(pattern, form, s.foldCase)) return `the line runs "${form.join(" ").slice(0, 200)}"`;
    }
  }
  for (let i = 0; i < s.parts.length; i++) {
    const part = s.parts[i]!;
    if (part.kind === "name" && (rule.tool === toolName || anyTool) && nameMatches(rule.pattern, part.name)) return ""; // the rule names it
  }
  if (PATH_TOOLS.has(rule.tool) || anyTool) {
    for (let i = 0; i < s.parts.length; i++) {
      const part = s.parts[i]!;
      if (part.kind !== "path") continue;
      if (pathRuleMatches(rule.pattern, part, s, true)) return `${part.display}${part.facts.real !== part.facts.given ? ` (really ${part.facts.real})` : ""}`;
    }
  }
  if (!PATH_TOOLS.has(toolName) && toolName !== "bash" && rule.tool === toolName && (rule.pattern === "*" || rule.pattern === "**")) return "";
  return undefined;
}

/** The first allow rule among `rules` (deny rules are skipped) that allows the part. */
function allowRuleFor(part: CallPart, toolName: string, rules: readonly PermissionRule[], s: CallSubjects): PermissionRule | undefined {
  if (part.kind === "command") {
    if (part.blocked || part.needsNoRule) return undefined;
    for (let i = 0; i < rules.length; i++) {
      const r = rules[i]!;
      if (r.action === "allow" && (r.tool === "bash" || r.tool === "*") && allowMatches(parseBashPattern(r.pattern), part)) return r;
    }
    return undefined;
  }
  if (part.kind === "name") {
    for (let i = 0; i < rules.length; i++) {
      const r = rules[i]!;
      if (r.action === "allow" && (r.tool === toolName || r.tool === "*") && nameMatches(r.pattern, part.name)) return r;
    }
    return undefined;
  }
  if (part.protection) return undefined;
  const readTool = part.viaRedirection ? "read" : toolName;
  const writes = part.access === "write";
  for (let i = 0; i < rules.length; i++) {
    const r = rules[i]!;
    if (r.action === "allow" && ((writes ? EDIT_TOOLS.has(r.tool) : r.tool === readTool) || r.tool === "*") && pathRuleMatches(r.pattern, part, s, false)) return r;
  }
  return undefined;
}

const nameMatchers = new Map<string, (name: string) => boolean>();

/** A glob over a name (`github/*`, `*`): the rules of tools that name things rather than paths. */
function nameMatches(pattern: string, name: string): boolean {
  let match = nameMatchers.get(pattern);
  if (!match) {
    match = picomatch(pattern.trim(), { dot: true });
    if (nameMatchers.size > 2000) nameMatchers.clear();
    nameMatchers.set(pattern, match);
  }
  return match(name);
}

/** Compiled path rules, by the home folder, the way paths compare (case, Windows: 0-3), and the pattern. */
const pathMatchers = new Map<string, Map<string, (subject: string) => boolean>[]>();
let pathMatcherCount = 0;

function expandHome(pattern: string, home: string): string {
  return pattern === "~" ? home : pattern.startsWith("~/") ? path.join(home, pattern.slice(2)) : pattern;
}

function pathMatcher(pattern: string, s: CallSubjects): (subject: string) => boolean {
  const home = s.platform.home ?? homedir();
  const windows = s.platform.platform === "win32";
  let byKind = pathMatchers.get(home);
  if (!byKind) pathMatchers.set(home, (byKind = [new Map(), new Map(), new Map(), new Map()]));
  const byPattern = byKind[(s.foldCase ? 1 : 0) + (windows ? 2 : 0)]!;
  let match = byPattern.get(pattern);
  if (!match) {
    const expanded = expandHome(pattern.trim(), home);
    // The glob alone: `src/**` matches the folder src itself too (case folded when asked).
    match = globTest(expanded, { dot: true, nocase: s.foldCase, windows });
    if (++pathMatcherCount > 2000) {
      pathMatchers.clear();
      pathMatcherCount = 0;
    }
    byPattern.set(pattern, match);
  }
  return match;
}

/**
 * Allow rules see the real path: relative to the project when inside, and absolute only for a
 * pattern that is itself absolute (`/tmp/**`, `~/notes/**`), so a project rule for every `.ts` file never reaches
 * `/home/me/x.ts`. Deny rules see every form, the path as given too, so a link can neither hide
 * what it points to nor be named to hide itself.
 */
function pathRuleMatches(pattern: string, part: PathPart, s: CallSubjects, deny: boolean): boolean {
  if (pattern === "*" || pattern === "**") return true;
  const match = pathMatcher(pattern, s);
  const f = part.facts;
  if (f.relative !== null && match(f.relative)) return true;
  if ((deny || absolutePattern(pattern, s)) && match(f.real)) return true;
  return deny && ((f.givenRelative !== null && match(f.givenRelative)) || match(f.given));
}

function absolutePattern(pattern: string, s: CallSubjects): boolean {
  const p = pattern.trim();
  return p === "~" || p.startsWith("~/") || (s.platform.platform === "win32" ? path.win32.isAbsolute(p) : path.posix.isAbsolute(p));
}

export interface ProposedRule {
  tool: string;
  /** One pattern per line (one rule each); empty when no rule could allow the call. */
  pattern: string;
  /** What each line means, in the same order. */
  meaning: string[];
  /** Shown beside the proposal (exact commands for destructive ones, parts that will ask again). */
  warning?: string;
}

/**
 * The rules "always allow in this project" proposes: one per simple command, never one rule
 * spanning two. Commands that run other code (interpreters, `npx`, code-running options) and
 * destructive ones get the exact command; others their name (and subcommand, for commands that
 * have them: HAS_SUBCOMMANDS) followed by ` *`. For paths: the file's folder
 * as `dir/**` (the real path, after links); protected files get none.
 */
export function proposeRule(toolName: string, subjects: CallSubjects): ProposedRule {
  const notes: string[] = [];
  const patterns: string[] = [];
  if (toolName === "bash") {
    if (subjects.opaque) notes.push(`No rule can allow this command line: it ${subjects.reasons[0]}.`);
    for (const part of subjects.parts) {
      if (part.kind !== "command" || part.needsNoRule) continue;
      if (part.blocked) {
        notes.push(`${part.text} will still ask: ${part.blocked}.`);
        continue;
      }
      const destructive = destructiveWarning(part.words);
      if (destructive) notes.push(destructive);
      patterns.push(commandPattern(part, destructive !== undefined));
    }
    if (subjects.parts.some((p) => p.kind === "path" && p.access === "write"))
      notes.push("Writes through redirections are judged as writes: they ask unless a write rule or auto-edit allows them.");
    const unique = [...new Set(patterns)];
    return { tool: "bash", pattern: unique.join("\n"), meaning: unique.map((p) => describeBashRule(p, "allow")), warning: notes.join(" ") || undefined };
  }
  for (const part of subjects.parts) {
    if (part.kind !== "path") continue;
    if (part.protection) {
      notes.push(`${part.display} is protected: no rule allows writing it, Lathe will ask each time.`);
      continue;
    }
    const subject = part.facts.relative ?? part.facts.real;
    const dir = path.posix.dirname(subject);
    patterns.push(dir === "." || dir === "/" || !part.facts.inside ? subject : `${dir}/**`);
  }
  const unique = [...new Set(patterns)];
  return { tool: toolName, pattern: unique.join("\n"), meaning: unique.map((p) => describePathRule(toolName, p, "allow")), warning: notes.join(" ") || undefined };
}

function commandPattern(part: CommandPart, destructive: boolean): string {
  const words = part.words;
  const name = words[0] ?? "";
  const sub = words[1];
  const exact =
    destructive ||
    INTERPRETERS.has(name) ||
    (sub !== undefined && RUNS_CODE_SUBCOMMANDS[name]?.includes(sub)) ||
    words.some((w) => isCodeRunningOption(name, w)) ||
    (name in CODE_RUNNING_OPTIONS && part.globbed.some(Boolean));
  if (exact || words.length === 1) return words.map(quotePatternWord).join(" ");
  const head = [name];
  if (sub && HAS_SUBCOMMANDS.has(name) && /^[a-z][a-z0-9:_-]*$/i.test(sub)) head.push(sub);
  return words.length > head.length ? `${head.map(quotePatternWord).join(" ")} *` : head.map(quotePatternWord).join(" ");
}

/** What a rule means now, for the rules screen and the dialog. */
export function describeRule(rule: Pick<PermissionRule, "tool" | "pattern" | "action">): string {
  if (rule.tool === "bash") return describeBashRule(rule.pattern, rule.action);
  if (PATH_TOOLS.has(rule.tool) || rule.tool === "*") return describePathRule(rule.tool, rule.pattern, rule.action);
  return `${rule.action === "allow" ? "Allows" : "Denies"} ${rule.tool} calls${rule.pattern === "*" ? "" : ` matching ${rule.pattern}`}.`;
}

function describePathRule(tool: string, pattern: string, action: "allow" | "deny"): string {
  const what = pattern === "*" || pattern === "**" ? "any path" : `paths matching ${pattern}`;
  if (action === "deny") {
    return `Denies every tool that reads or writes ${what} (read, write, edit, ls, find, grep and bash redirections), by the path as given or as it really is after symlinks${tool === "*" ? "; also every command" : ""}.`;
  }
  const tools = EDIT_TOOLS.has(tool) ? "write and edit (and bash redirections that write)" : tool === "*" ? "every tool" : tool;
  const where = what === "any path" || pattern.trim().startsWith("~") || pattern.trim().startsWith("/") ? what : `${what} inside the project`;
  return `Allows ${tools} on ${where}, judged by the real path after symlinks; never protected files such as .git/.`;
}
