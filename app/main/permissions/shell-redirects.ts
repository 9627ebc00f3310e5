// Judges one file redirection node (`file_redirect`): a write (`>`, `>>`, `>|`, `&>`, `&>>`, `>&`
// to a file) or read (`<`) of a file comes back as such, with its target word; descriptor
// duplications (`2>&1`, `>&-`) and device files (/dev/null, /dev/stderr...) are nothing to judge;
// an operator bash reads differently from the parser, a target with wildcards, words after the
// target (which bash gives to the command), or a `{NAME}` before the operator (bash stores the
// descriptor in NAME) gives a reason no rule may allow the line. Other redirections (here-documents) are the caller's. Pure apart
// from adding the target word's own reasons to `reasons`; never throws.
import type { SyntaxNode } from "./shell-parser.ts";
import { isCodeRunningVariable } from "./command-knowledge.ts";
import { wordOf, type ShellWord } from "./shell-words.ts";

const WRITE_OPERATORS = new Set([">", ">>", ">|", "&>", "&>>"]);
const NOT_FILES = /^\/dev\/(?:null|stdout|stderr|tty|fd\/\d+)$/;
const DESCRIPTOR = /^(?:\d+|-)$/;

export interface RedirectVerdict {
  /** Why no rule may allow the line (the caller adds it after the target's own reasons). */
  reason?: string;
  /** The file it reads or writes. */
  file?: { access: "write" | "read"; operator: string; target: ShellWord };
}

/** `{NAME}` right before a redirection's operator (the parser reads it as the command's word). */
const DESCRIPTOR_VARIABLE = /\{([A-Za-z_][A-Za-z0-9_]*)\}$/;

export function judgeFileRedirect(node: SyntaxNode, source: string, reasons: Set<string>): RedirectVerdict {
  // `{PATH}>file` opens file and stores its descriptor's number in PATH (any variable): the
  // commands after it then run other programs. No rule may allow one.
  const variable = DESCRIPTOR_VARIABLE.exec(source.slice(Math.max(0, node.start - 256), node.start))?.[1];
  if (variable) {
    const why = isCodeRunningVariable(variable) ? "which can make the commands after it run other code" : "which Lathe does not judge";
    return { reason: `stores a file descriptor in the variable ${variable} ({${variable}}> or <), ${why}` };
  }
  let operator = "";
  let destination: SyntaxNode | undefined;
  // Words after the target (`rm >/dev/null -rf /`): the parser hangs them on the redirection, bash
  // gives them to the command as arguments, which rules would then not see.
  let moreWords = false;
  for (let i = 0; i < node.children.length; i++) {
    const c = node.children[i]!;
    if (!c.named) operator ||= c.type;
    else if (c.type === "file_descriptor") continue;
    else if (!destination) destination = c;
    else moreWords = true;
  }
  const verdict = judgeTarget(node, source, reasons, operator, destination);
  // The file is still judged (a path deny rule sees it); the reason keeps any rule from allowing the line.
  if (moreWords) verdict.reason ??= readDifferently(node, source);
  return verdict;
}

function judgeTarget(node: SyntaxNode, source: string, reasons: Set<string>, operator: string, destination: SyntaxNode | undefined): RedirectVerdict {
  if (operator === ">&-" || operator === "<&-") return {};
  if (!destination) return { reason: readDifferently(node, source) };
  const target = wordOf(destination, source, reasons);
  if (operator === ">&" || operator === "<&") {
    if (target.value !== null && DESCRIPTOR.test(target.value)) return {}; // 2>&1: a descriptor, not a file
    if (operator === "<&") return { reason: readDifferently(node, source) };
  } else if (!WRITE_OPERATORS.has(operator) && operator !== "<") {
    return { reason: readDifferently(node, source) };
  }
  if (target.value === null) return {};
  if (target.glob) return { reason: "redirects to a file name with wildcards, which bash expands when it runs" };
  if (NOT_FILES.test(target.value)) return {};
  return { file: { access: operator === "<" ? "read" : "write", operator, target } };
}

function readDifferently(node: SyntaxNode, source: string): string {
  return `contains a redirection bash reads differently (${source.slice(node.start, node.end)})`;
}
