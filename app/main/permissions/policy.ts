// The permission policy: a pure decision (allow, deny or ask) for one tool call, from the stored
// rules, the permission mode and the defaults. Order: a matching deny rule always wins (at every
// scope, in every mode); then every part of the call must be allowed by a rule; then the mode;
// then the defaults (read-only tools inside the project run, everything else asks).
import picomatch from "picomatch";
import { homedir } from "node:os";
import path from "node:path";
import type { PermissionRule } from "../store/index.ts";
import { describeToolPaths } from "../tools/index.ts";
import { splitShellCommand } from "./shell-split.ts";

export type PermissionMode = "ask" | "auto-edit" | "full-auto" | "sandboxed-auto";
export type Decision = { action: "allow" | "deny" | "ask"; by: "rule" | "mode" | "default"; rule?: PermissionRule; reason?: string };

// tool_search (MCP) lists and loads tools; it runs none.
export const READ_ONLY_TOOLS = new Set(["read", "ls", "find", "grep", "tool_search"]);
export const EDIT_TOOLS = new Set(["edit", "write"]);

/** What a call touches, in the forms rules are matched against. */
export interface CallSubjects {
  /** bash: the simple commands; path tools: project-relative (inside) or absolute paths. */
  subjects: string[];
  /** Absolute paths, for path tools. */
  absolutePaths: string[];
  outsideProject: boolean;
  /** A command that could not be split with confidence: no allow rule applies to it. */
  opaque: boolean;
  command?: string;
}

export function callSubjects(toolName: string, args: unknown, projectDir: string): CallSubjects {
  if (toolName === "bash") {
    const command = String((args as { command?: unknown })?.command ?? "");
    const split = splitShellCommand(command);
    return { subjects: split.parts.map(normalizeCommand), absolutePaths: [], outsideProject: false, opaque: split.opaque, command };
  }
  const paths = describeToolPaths(toolName, args, projectDir);
  const root = path.resolve(projectDir);
  return {
    subjects: paths.map((p) => (p.outsideProject ? p.path : path.relative(root, p.path) || ".")),
    absolutePaths: paths.map((p) => p.path),
    outsideProject: paths.some((p) => p.outsideProject),
    opaque: false,
  };
}

function normalizeCommand(command: string): string {
  return command.trim().replace(/\s+/g, " ");
}

function expandHome(pattern: string): string {
  return pattern === "~" ? homedir() : pattern.startsWith("~/") ? path.join(homedir(), pattern.slice(2)) : pattern;
}

const commandMatchers = new Map<string, RegExp>();

/** `npm test *` matches "npm test" and "npm test -- --watch"; `*` elsewhere matches anything. */
export function commandMatches(pattern: string, command: string): boolean {
  let re = commandMatchers.get(pattern);
  if (!re) {
    const normalized = normalizeCommand(pattern);
    const body = normalized
      .split("*")
      .map((s) => s.replace(/[.+?^${}()|[\]\\]/g, "\\$&"))
      .join(".*");
    re = new RegExp(`^${body.endsWith(" .*") ? `${body.slice(0, -3)}(?: .*)?` : body}$`, "s");
    commandMatchers.set(pattern, re);
  }
  return re.test(command);
}

export function pathMatches(pattern: string, subject: string, absolute: string): boolean {
  const expanded = expandHome(pattern);
  const match = picomatch(expanded, { dot: true });
  return match(subject) || match(absolute) || (!path.isAbsolute(expanded) && subject === expanded.replace(/\/\*\*$/, ""));
}

function ruleMatches(rule: PermissionRule, toolName: string, subject: string, absolute: string): boolean {
  if (rule.tool !== toolName && rule.tool !== "*") return false;
  if (rule.pattern === "*" || rule.pattern === "**") return true;
  return toolName === "bash" ? commandMatches(rule.pattern, subject) : pathMatches(rule.pattern, subject, absolute);
}

export function decide(input: {
  toolName: string;
  subjects: CallSubjects;
  rules: readonly PermissionRule[];
  mode: PermissionMode;
}): Decision {
  const { toolName, subjects: s, rules, mode } = input;
  const pairs = s.subjects.map((subject, i) => [subject, s.absolutePaths[i] ?? subject] as const);
  if (toolName === "bash" && s.command !== undefined) pairs.push([normalizeCommand(s.command), s.command]);

  for (const rule of rules) {
    if (rule.action !== "deny") continue;
    const hit = pairs.length === 0 ? ruleMatches(rule, toolName, "", "") : pairs.some(([subject, abs]) => ruleMatches(rule, toolName, subject, abs));
    if (hit) return { action: "deny", by: "rule", rule, reason: `Denied by the rule "${rule.tool}: ${rule.pattern}" (${rule.scope}).` };
  }

  const allows = rules.filter((r) => r.action === "allow");
  const parts = toolName === "bash" ? pairs.slice(0, -1) : pairs;
  if (!s.opaque && allows.length > 0) {
    const covering: PermissionRule[] = [];
    const allCovered =
      parts.length === 0
        ? allows.some((r) => (r.tool === toolName || r.tool === "*") && (r.pattern === "*" || r.pattern === "**") && covering.push(r))
        : parts.every(([subject, abs]) => {
            const rule = allows.find((r) => ruleMatches(r, toolName, subject, abs));
            if (rule) covering.push(rule);
            return rule !== undefined;
          });
    if (allCovered) return { action: "allow", by: "rule", rule: covering[0] };
  }

  if (mode === "full-auto") return { action: "allow", by: "mode" };
  if (mode === "auto-edit" && EDIT_TOOLS.has(toolName) && !s.outsideProject) return { action: "allow", by: "mode" };
  if (READ_ONLY_TOOLS.has(toolName) && !s.outsideProject) return { action: "allow", by: "default" };
  return { action: "ask", by: "default" };
}

/**
 * The rule "always allow in this project" proposes: for commands, each part's command and
 * subcommand followed by ` *` (one pattern per line); for paths, the file's folder as `dir/**`.
 */
export function proposeRule(toolName: string, subjects: CallSubjects): { tool: string; pattern: string } {
  if (toolName === "bash") {
    const patterns = [...new Set(subjects.subjects.map(commandPrefixPattern))];
    return { tool: "bash", pattern: patterns.join("\n") || "*" };
  }
  const patterns = [...new Set(subjects.subjects.map((p) => {
    const dir = path.dirname(p);
    return dir === "." || dir === "/" ? p : `${dir}/**`;
  }))];
  return { tool: toolName, pattern: patterns.join("\n") || "*" };
}

function commandPrefixPattern(command: string): string {
  const words = command.split(" ");
  const head = [words[0] ?? ""];
  const sub = words[1];
  if (sub && /^[a-z][a-z0-9:_-]*$/i.test(sub) && words.length > 1) head.push(sub);
  return words.length > head.length ? `${head.join(" ")} *` : head.join(" ");
}
