// The parser's direct walk (web-tree-sitter's module called without the public cursor's copying)
// against the public cursor: the same syntax trees for every command of the adversarial corpus and
// for deep, broken and non-ASCII input, and the cursor freed either way (many parses in a row).
import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { loadShellParser, parseShell, shellParserMemoryBytes, shellParserWalk } from "../../app/main/permissions/shell-parser.ts";

const corpusDir = path.join(import.meta.dirname, "corpus");
const corpusCommands = readdirSync(corpusDir)
  .filter((f) => f.endsWith(".json"))
  .flatMap((f) => (JSON.parse(readFileSync(path.join(corpusDir, f), "utf8")) as { cases: { command: string }[] }).cases.map((c) => c.command));
const extra = [
  "",
  "echo 'unterminated",
  "a && && b",
  "x=$(( 1 + (2 * 3) ))",
  "echo \u00e9\u4e00 \u{1f600} 'caf\u00e9' > f\u00e9.txt",
  "cat <<EOF\nbody $HOME\nEOF\necho done",
  `${"(".repeat(300)}echo deep${")".repeat(300)}`,
  Array.from({ length: 200 }, (_, i) => `cmd${i} --flag=${i} "arg ${i}" > out${i}.log`).join(" && "),
];

describe("parseShell", () => {
  beforeAll(() => loadShellParser());

  it("walks the tree directly (not through the public cursor) and gets the same nodes", () => {
    expect(shellParserWalk()).toBe("direct");
    expect(corpusCommands.length).toBeGreaterThan(300);
    for (const command of [...corpusCommands, ...extra]) {
      expect(parseShell(command), command).toEqual(parseShell(command, { publicApi: true }));
    }
  });

  it("finds errors, missing tokens and fields as before", () => {
    const broken = parseShell("a && && b");
    const anyBroken = (n: ReturnType<typeof parseShell>): boolean => n.broken || n.children.some(anyBroken);
    expect(anyBroken(broken)).toBe(true);
    const redirected = parseShell("echo hi > out.txt");
    expect(redirected.children[0]!.type).toBe("redirected_statement");
    expect(redirected.children[0]!.children.find((c) => c.type === "file_redirect")!.field).toBe("redirect");
  });

  it("keeps parsing correctly through many parses in a row (the cursor is freed as it ended)", () => {
    const long = extra.at(-1)!;
    const expected = parseShell(long, { publicApi: true });
    for (let i = 0; i < 300; i++) expect(parseShell(i % 2 ? long : "ls -la").type).toBe("program");
    expect(parseShell(long)).toEqual(expected);
  });

  it("frees every tree it makes: the module's memory does not grow over many parses", () => {
    // Each tree of this line takes ~4 KB of the module's memory: 2,000 of them kept would make it
    // grow past the free part of its first 32 MB.
    const line = Array.from({ length: 20 }, (_, i) => `cmd${i} --flag=${i} "arg ${i}" > out${i}.log`).join(" && ");
    for (let i = 0; i < 50; i++) parseShell(line, { transient: true });
    const before = shellParserMemoryBytes();
    expect(before).toBeGreaterThan(0);
    for (let i = 0; i < 3000; i++) parseShell(i % 3 ? line : "a && && b", { transient: i % 2 === 0 });
    expect(shellParserMemoryBytes()).toBe(before);
  }, 120_000);

  it("gives the same nodes when parsing into reused objects (transient), whatever the previous tree's shape", () => {
    // Every corpus command, then the same ones from the largest tree down: the reused nodes and
    // children arrays grow, shrink and change kind from one parse to the next.
    const commands = [...corpusCommands, ...extra];
    for (const command of [...commands, ...[...commands].reverse()]) {
      const transient = structuredClone(parseShell(command, { transient: true }));
      expect(transient, command).toEqual(parseShell(command));
    }
  });

  it("reuses the nodes of the previous transient parse and leaves other trees alone", () => {
    const kept = parseShell("echo kept > out.txt");
    const keptCopy = structuredClone(kept);
    const first = parseShell("ls -la", { transient: true });
    const second = parseShell("cat a | wc -l", { transient: true });
    expect(second).toBe(first);
    expect(second.children[0]!.type).toBe("pipeline");
    expect(kept).toEqual(keptCopy);
  });
});
