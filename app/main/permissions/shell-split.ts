// Splits a shell command into the simple commands it would run, so a rule can allow a compound
// command only when it allows every part: `a && b`, `a || b`, `a; b`, `a | b`, `a & b`, newlines,
// subshells `( … )`, and the commands inside `$( … )`, backticks and `<( … )`. Quotes and escapes
// are respected. Not a full shell parser, and deliberately conservative: what it cannot read
// cleanly (an unterminated quote or substitution) comes back as `opaque`, which no allow rule
// matches.
export interface SplitCommand {
  /** The simple commands, trimmed, outermost first; substitutions appear as their own parts too. */
  parts: string[];
  /** True when the text could not be split with confidence. */
  opaque: boolean;
}

export function splitShellCommand(command: string): SplitCommand {
  const parts: string[] = [];
  const opaque = !splitInto(command, parts);
  return { parts: parts.filter((p) => p.length > 0), opaque };
}

/** Returns false when quoting or nesting is unbalanced. */
function splitInto(text: string, parts: string[]): boolean {
  let current = "";
  let ok = true;
  const push = (): void => {
    const trimmed = current.trim();
    if (trimmed) parts.push(trimmed);
    current = "";
  };
  for (let i = 0; i < text.length; i++) {
    const c = text[i]!;
    const next = text[i + 1];
    if (c === "\\") {
      current += c + (next ?? "");
      i++;
    } else if (c === "'") {
      const end = text.indexOf("'", i + 1);
      if (end < 0) return false;
      current += text.slice(i, end + 1);
      i = end;
    } else if (c === '"') {
      const end = scanDoubleQuoted(text, i + 1, parts);
      if (end < 0) return false;
      current += text.slice(i, end + 1);
      i = end;
    } else if ((c === "$" || c === "<" || c === ">") && next === "(") {
      const end = matchingParen(text, i + 1);
      if (end < 0) return false;
      ok = splitInto(text.slice(i + 2, end), parts) && ok;
      current += text.slice(i, end + 1);
      i = end;
    } else if (c === "`") {
      const end = text.indexOf("`", i + 1);
      if (end < 0) return false;
      ok = splitInto(text.slice(i + 1, end), parts) && ok;
      current += text.slice(i, end + 1);
      i = end;
    } else if (c === "(" || c === ")" || c === "{" || c === "}") {
      // Grouping: the commands inside are parts like any other.
      if (c === "(" || c === ")" || /^\s*$/.test(current)) push();
      else current += c;
    } else if (c === ";" || c === "\n" || c === "|" || c === "&") {
      // `>&` and `&>` are redirections, not separators.
      if (c === "&" && (text[i - 1] === ">" || next === ">")) {
        current += c;
        continue;
      }
      push();
      if ((c === "|" || c === "&") && next === c) i++;
    } else {
      current += c;
    }
  }
  push();
  return ok;
}

/** Index of the closing quote; substitutions inside double quotes are split too. */
function scanDoubleQuoted(text: string, start: number, parts: string[]): number {
  for (let i = start; i < text.length; i++) {
    const c = text[i]!;
    if (c === "\\") i++;
    else if (c === '"') return i;
    else if (c === "$" && text[i + 1] === "(") {
      const end = matchingParen(text, i + 1);
      if (end < 0) return -1;
      if (!splitInto(text.slice(i + 2, end), parts)) return -1;
      i = end;
    } else if (c === "`") {
      const end = text.indexOf("`", i + 1);
      if (end < 0) return -1;
      if (!splitInto(text.slice(i + 1, end), parts)) return -1;
      i = end;
    }
  }
  return -1;
}

function matchingParen(text: string, open: number): number {
  let depth = 0;
  for (let i = open; i < text.length; i++) {
    const c = text[i]!;
    if (c === "\\") i++;
    else if (c === "'") {
      const end = text.indexOf("'", i + 1);
      if (end < 0) return -1;
      i = end;
    } else if (c === "(") depth++;
    else if (c === ")" && --depth === 0) return i;
  }
  return -1;
}
