// Judges one file redirection node (`file_redirect`): a write (`>`, `>>`, `>|`, `&>`, `&>>`, `>&`
// to a file) or read (`<`) of a file comes back as such, with its target word; descriptor
// duplications (`2>&1`, `>&-`) and device files (/dev/null, /dev/stderr...) are nothing to judge;
// an operator bash reads differently from the parser, or a target with wildcards, gives a reason
// no rule may allow the line. Other redirections (here-documents) are the caller's. Pure apart
// from adding the target word's own reasons to `reasons`; never throws.
import type { SyntaxNode } from "./shell-parser.ts";
import { wordOf, type ShellWord } from "./shell-words.ts";

const WRITE_OPERATORS = new Set([">", ">>", ">|", "&>", "&>>"]);
const NOT_FILES = /^\/dev\/(?:null|stdout|stderr|tty|fd\/\d+)$/;
const DESCRIPTOR = /^(?:\d+|-)$/;

export interface RedirectVerdict {
  /** The target's node, when it was read: the caller lists the commands inside it for deny rules. */
  destination?: SyntaxNode;
  /** Why no rule may allow the line (the caller adds it after the target's own reasons). */
  reason?: string;
  /** The file it reads or writes. */
  file?: { access: "write" | "read"; operator: string; target: ShellWord };
}

export function judgeFileRedirect(node: SyntaxNode, source: string, reasons: Set<string>): RedirectVerdict {
  let operator = "";
  let destination: SyntaxNode | undefined;
  for (let i = 0; i < node.children.length; i++) {
    const c = node.children[i]!;
    if (!c.named) operator ||= c.type;
    else if (!destination && c.type !== "file_descriptor") destination = c;
  }
  if (operator === ">&-" || operator === "<&-") return {};
  if (!destination) return { reason: readDifferently(node, source) };
  const target = wordOf(destination, source, reasons);
  if (operator === ">&" || operator === "<&") {
    if (target.value !== null && DESCRIPTOR.test(target.value)) return { destination }; // 2>&1: a descriptor, not a file
    if (operator === "<&") return { destination, reason: readDifferently(node, source) };
  } else if (!WRITE_OPERATORS.has(operator) && operator !== "<") {
    return { destination, reason: readDifferently(node, source) };
  }
  if (target.value === null) return { destination };
  if (target.glob) return { destination, reason: "redirects to a file name with wildcards, which bash expands when it runs" };
  if (NOT_FILES.test(target.value)) return { destination };
  return { destination, file: { access: operator === "<" ? "read" : "write", operator, target } };
}

function readDifferently(node: SyntaxNode, source: string): string {
  return `contains a redirection bash reads differently (${source.slice(node.start, node.end)})`;
}
