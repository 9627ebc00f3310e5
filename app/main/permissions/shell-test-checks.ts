// Judges `[ ... ]` and `[[ ... ]]` tests: over literal words they have no effect and need no
// rule; anything computed, or an operand bash evaluates as arithmetic or as an array subscript
// (which expands `$(...)` in it, quoted or not), is a reason no rule may allow the line.
// Returns the reason and whether the test's inner commands must still be listed (`opaque`);
// pure; never throws.
import type { SyntaxNode } from "./shell-parser.ts";

/** `[[ a -eq b ]]` and its kin evaluate both operands as arithmetic. */
const ARITHMETIC_TESTS = new Set(["-eq", "-ne", "-lt", "-le", "-gt", "-ge"]);
const COMPUTED = new Set(["simple_expansion", "expansion", "command_substitution", "process_substitution", "arithmetic_expansion", "ansi_c_string", "translated_string"]);
const EXPRESSIONS = new Set(["binary_expression", "unary_expression", "parenthesized_expression"]);

export interface TestVerdict {
  reason: string;
  /** The test holds values only known when it runs: the commands inside it are listed for deny rules. */
  computed: boolean;
}

/** Why no rule may allow this test, or undefined when it only compares literal words. */
export function testVerdict(node: SyntaxNode, source: string): TestVerdict | undefined {
  const text = (n: SyntaxNode) => source.slice(n.start, n.end);
  const literal = (n: SyntaxNode): boolean => {
    if (COMPUTED.has(n.type) || n.broken) return false;
    if (n.type === "word" && /(?:^|[^\\])[*?[{]/.test(text(n))) return false; // wildcards and braces expand
    return n.children.every(literal);
  };
  if (!literal(node)) return { reason: "contains a test over values only known when it runs", computed: true };
  // Literal words can still run code: `[[ ... -eq ... ]]` evaluates its operands as arithmetic
  // and `-v` its operand as a subscript, and both expand `$(...)` in them, quoted or not
  // (`[[ 'a[$(rm x)]' -eq 0 ]]`); a plain name is evaluated again as an expression.
  const doubleBracket = node.children[0]?.type === "[[";
  const evaluates = (n: SyntaxNode): boolean => {
    const operator = n.children.find((c) => c.type === "test_operator");
    const operands = n.children.filter((c) => c.named && c !== operator && !EXPRESSIONS.has(c.type));
    const op = operator ? text(operator) : "";
    if (op === "-v") return operands.some((o) => !/^[A-Za-z_][A-Za-z0-9_]*$/.test(text(o)));
    if (doubleBracket && ARITHMETIC_TESTS.has(op)) return operands.some((o) => !/^-?[0-9]+$/.test(text(o)));
    return n.children.some(evaluates);
  };
  if (evaluates(node)) return { reason: "contains a test that evaluates a value as arithmetic or an array subscript, which can run commands", computed: false };
  return undefined;
}
