// Bash rule patterns (app/main/permissions/bash-rules.ts) driven directly: how a pattern is read
// into words, when it can never match and why, how allow and deny rules match a command's words,
// the sentences that explain a rule, and the bounded caches. Through the policy, policy.test.ts.
import { describe, expect, it } from "vitest";
import {
  allowMatches,
  commandName,
  denyMatches,
  describeBashRule,
  legacyTextMatches,
  parseBashPattern,
  quotePatternWord,
  type BashPattern,
} from "../../app/main/permissions/bash-rules.ts";

/** The parts of a parsed pattern a test compares (the caches' fields left out). */
const read = (pattern: string): Pick<BashPattern, "words" | "globs" | "anyArgs" | "any" | "invalid"> => {
  const { words, globs, anyArgs, any, invalid } = parseBashPattern(pattern);
  return { words, globs, anyArgs, any, invalid };
};
/** A command of literal words (nothing bash would expand). */
const command = (...words: string[]) => ({ words, globbed: words.map(() => false) });
const allows = (pattern: string, ...words: string[]) => allowMatches(parseBashPattern(pattern), command(...words));
const denies = (pattern: string, words: string[], foldCase = false) => denyMatches(parseBashPattern(pattern), words, foldCase);

describe("reading a pattern", () => {
  it("splits words at spaces, tabs and newlines, and a final lone * means any arguments", () => {
    expect(read("npm  test\tunit\nfast *")).toEqual({ words: ["npm", "test", "unit", "fast"], globs: [false, false, false, false], anyArgs: true, any: false, invalid: undefined });
    expect(read("npm test")).toMatchObject({ words: ["npm", "test"], anyArgs: false });
    // A lone * as the only word is not "any arguments" of nothing: it is the any pattern only alone.
    expect(read("ls *x")).toMatchObject({ words: ["ls", "*x"], globs: [false, true], anyArgs: false });
  });

  it("reads * and ** alone as any command, with no words", () => {
    for (const any of ["*", "**", "  *  "]) expect(read(any)).toEqual({ words: [], globs: [], anyArgs: true, any: true, invalid: undefined });
    expect(read("***")).toMatchObject({ any: false, words: ["***"] });
  });

  it("takes a backslash's next character literally, and a trailing backslash as itself", () => {
    expect(read("echo a\\ b\\*")).toMatchObject({ words: ["echo", "a b*"], globs: [false, false] });
    expect(read("echo x\\")).toMatchObject({ words: ["echo", "x\\"] });
    expect(read("\\rm -rf")).toMatchObject({ words: ["rm", "-rf"] });
  });

  it("removes quotes, keeping what they hold as one word with the letters around it", () => {
    expect(read(`git commit -m 'two words' pre"mid dle"post ''`)).toMatchObject({ words: ["git", "commit", "-m", "two words", "premid dlepost", ""], invalid: undefined });
    expect(read(`echo "it's"`)).toMatchObject({ words: ["echo", "it's"] });
  });

  it("says why a pattern can never be one command", () => {
    expect(read("echo 'open")).toMatchObject({ invalid: "it has an unterminated quote" });
    expect(read(`echo "$HOME"`)).toMatchObject({ invalid: "it contains $ or ` inside double quotes, which bash would expand", words: ["echo", "$HOME"] });
    expect(read('echo "`id`"').invalid).toMatch(/inside double quotes/);
    // Single quotes keep $ literally.
    expect(read("echo '$HOME'")).toMatchObject({ invalid: undefined, words: ["echo", "$HOME"] });
    expect(read("npm test; curl x")).toMatchObject({ invalid: 'a rule names one command, and this pattern contains ";"', words: ["npm", "test;", "curl", "x"] });
    expect(read("a|b").invalid).toBe('a rule names one command, and this pattern contains "|"');
    expect(read("(rm x)")).toMatchObject({ words: ["(rm", "x)"] });
    // The first reason is kept.
    expect(read("a|b 'c").invalid).toContain('"|"');
    expect(read("   ")).toMatchObject({ words: [], invalid: "the pattern is empty", any: false });
  });

  it("keeps a pattern's old meaning (its text, * matching anything) only when it has a *", () => {
    expect(parseBashPattern("rm -rf").legacyText).toBeUndefined();
    // A final lone * is "any arguments", not a * inside a word.
    expect(parseBashPattern("rm -rf *").legacyText).toBeUndefined();
    const legacy = parseBashPattern("cat  *.txt *").legacyText!;
    expect(legacy.test("cat a.txt")).toBe(true);
    expect(legacy.test("cat a.txt b")).toBe(true);
    expect(legacy.test("cat a.txtb")).toBe(false);
    expect(legacy.test("cat a.md")).toBe(false);
  });

  it("returns the same reading for the same text, from a cache that is emptied past 2,000 patterns", () => {
    const first = parseBashPattern("cached pattern *");
    expect(parseBashPattern("cached pattern *")).toBe(first);
    expect(parseBashPattern(" cached pattern * ")).not.toBe(first);
    expect(parseBashPattern(" cached pattern * ")).toEqual(first);
    for (let i = 0; i < 2002; i++) parseBashPattern(`filler ${i}`);
    const again = parseBashPattern("cached pattern *");
    expect(again).not.toBe(first);
    expect(again).toEqual(first);
  });
});

describe("the old meaning of a pattern as text", () => {
  it("matches the whole text, * as anything, a trailing ' *' also as nothing, regular expression characters literally", () => {
    expect(legacyTextMatches("git push *", "git push")).toBe(true);
    expect(legacyTextMatches("git push *", "git push origin main")).toBe(true);
    expect(legacyTextMatches("git push *", "git pushy")).toBe(false);
    expect(legacyTextMatches("git  push", "git push")).toBe(true);
    expect(legacyTextMatches("a.b (c)+?", "a.b (c)+?")).toBe(true);
    expect(legacyTextMatches("a.b", "axb")).toBe(false);
    expect(legacyTextMatches("x*y", "x\nmid\ny")).toBe(true);
    expect(legacyTextMatches(" echo hi ", "echo hi")).toBe(true);
    expect(legacyTextMatches("echo hi", "say echo hi")).toBe(false);
  });

  it("caches each pattern's expression, emptied past 2,000 patterns, with the same answers", () => {
    expect(legacyTextMatches("kept *", "kept 1")).toBe(true);
    for (let i = 0; i < 2002; i++) legacyTextMatches(`filler ${i} *`, "x");
    expect(legacyTextMatches("kept *", "kept 1")).toBe(true);
    expect(legacyTextMatches("kept *", "other")).toBe(false);
  });
});

describe("allow rules", () => {
  it("never match with an invalid pattern, and * matches any command", () => {
    expect(allows("npm test; curl x", "npm", "test;", "curl", "x")).toBe(false);
    expect(allows("*", "anything", "at", "all")).toBe(true);
    // Any command means any: an option that runs code too (the command line is still judged whole).
    expect(allows("*", "git", "-c", "x=y", "status")).toBe(true);
  });

  it("match exactly, or with any arguments after a trailing *", () => {
    expect(allows("npm test", "npm", "test")).toBe(true);
    expect(allows("npm test", "npm", "test", "x")).toBe(false);
    expect(allows("npm test", "npm")).toBe(false);
    expect(allows("npm test *", "npm", "test")).toBe(true);
    expect(allows("npm test *", "npm", "test", "--watch")).toBe(true);
    expect(allows("npm test *", "npm", "install")).toBe(false);
    expect(allows("npm test *", "npm")).toBe(false);
    // Each word of the pattern needs a word of the command, a lone * inside the pattern too.
    expect(allows("npm * *", "npm")).toBe(false);
    expect(allows("npm * *", "npm", "ci")).toBe(true);
  });

  it("match a * inside a word against that word only, never a word bash expands, nor an option that runs code", () => {
    expect(allows("npm run test:*", "npm", "run", "test:unit")).toBe(true);
    expect(allows("npm run test:*", "npm", "run", "lint")).toBe(false);
    expect(allowMatches(parseBashPattern("npm run test:*"), { words: ["npm", "run", "test:u*"], globbed: [false, false, true] })).toBe(false);
    expect(allows("git *", "git", "status")).toBe(true);
    expect(allows("git -*", "git", "-c")).toBe(false);
    expect(allows("git -*", "git", "-v")).toBe(true);
    expect(allows("git *", "git", "-c", "x=y", "status")).toBe(false);
    // Other characters of the word are literal, a * matches across a newline inside the word.
    expect(allows("npm run test.e2e:*", "npm", "run", "test.e2e:ci")).toBe(true);
    expect(allows("npm run test.e2e:*", "npm", "run", "testxe2e:ci")).toBe(false);
    expect(allows("printf a*", "printf", "a\nb")).toBe(true);
  });

  it("refuse, for commands with options that run code, a word bash expands after the pattern (a file named -c...)", () => {
    expect(allowMatches(parseBashPattern("git add *"), { words: ["git", "add", "*.ts"], globbed: [false, false, true] })).toBe(false);
    expect(allowMatches(parseBashPattern("ls *"), { words: ["ls", "*.ts"], globbed: [false, true] })).toBe(true);
  });
});

describe("deny rules", () => {
  it("* denies everything, even no words; otherwise no words is no match", () => {
    expect(denies("*", [])).toBe(true);
    expect(denies("rm", [])).toBe(false);
    // Even a pattern whose old meaning as text matches an empty text.
    expect(denies("* *", [])).toBe(false);
    expect(denies("'open", ["'open"])).toBe(false);
  });

  it("match the command's name however it was reached, and a glob in the name", () => {
    expect(denies("/bin/rm", ["rm", "x"])).toBe(true);
    expect(denies("rm", ["rmdir"])).toBe(false);
    expect(denies("RM.exe", ["rm"], true)).toBe(true);
    expect(denies("RM", ["rm"], false)).toBe(false);
    expect(denies("py*", ["python3", "x"])).toBe(true);
    expect(denies("py*", ["ruby", "x"])).toBe(false);
  });

  it("find the rule's operands in order among the command's, and its options in any order and form", () => {
    expect(denies("git push origin", ["git", "-v", "push", "--force", "origin", "main"])).toBe(true);
    expect(denies("git push origin", ["git", "origin", "push"])).toBe(false);
    expect(denies("rm -rf", ["rm", "-r", "-f", "x"])).toBe(true);
    expect(denies("rm -rf", ["rm", "-fr", "x"])).toBe(true);
    expect(denies("rm -rf", ["rm", "-r", "x"])).toBe(false);
    expect(denies("git push --force", ["git", "push", "--force=yes"])).toBe(true);
    expect(denies("git push --force", ["git", "push", "--force-with-lease"])).toBe(false);
    expect(denies("git push --force", ["git", "push", "--forc"])).toBe(false);
    // A lone - is an operand, not an option; --x is no short option.
    expect(denies("cat -", ["cat", "-"])).toBe(true);
    expect(denies("cat -", ["cat", "x"])).toBe(false);
    // A long option is that option, not any word or option of its length.
    expect(denies("curl --data", ["curl", "abcdef"])).toBe(false);
    expect(denies("curl --data", ["curl", "--json"])).toBe(false);
    expect(denies("cat -x", ["cat", "--x"])).toBe(false);
    // An operand with a glob matches by that glob; case folded only when asked.
    expect(denies("curl *.sh", ["curl", "-O", "get.sh"])).toBe(true);
    expect(denies("git PUSH", ["git", "push"], true)).toBe(true);
    expect(denies("git PUSH", ["git", "push"], false)).toBe(false);
    expect(denies("git PUSH", ["git", "pull"], true)).toBe(false);
  });

  it("with a * inside, also match the command's words as text", () => {
    expect(denies("curl*|*sh", ["curl", "x|sh"])).toBe(true);
    expect(denies("echo a*b", ["echo", "a", "b"])).toBe(true);
  });
});

describe("explaining a rule", () => {
  it("for deny rules", () => {
    expect(describeBashRule("*", "deny")).toBe("Denies every command.");
    expect(describeBashRule("rm", "deny")).toBe(
      "Denies rm, whatever follows, however it is written (/bin/rm, \\rm, quoted) and inside sudo, env, xargs, find -exec, bash -c and the like.",
    );
    expect(describeBashRule("git push -f orig*", "deny")).toBe(
      'Denies git with "push", -f, "orig*" (options in any order), whatever follows, however it is written (/bin/git, \\git, quoted) and inside sudo, env, xargs, find -exec, bash -c and the like; also any command whose words match the pattern as text.',
    );
    expect(describeBashRule("git push *", "deny")).toBe(
      'Denies git with "push", whatever follows, however it is written (/bin/git, \\git, quoted) and inside sudo, env, xargs, find -exec, bash -c and the like.',
    );
    expect(describeBashRule("a|b", "deny")).toBe('Denies any command whose words read as this text (a rule names one command, and this pattern contains "|").');
  });

  it("for allow rules", () => {
    expect(describeBashRule("a|b", "allow")).toBe('Never matches: a rule names one command, and this pattern contains "|".');
    expect(describeBashRule("*", "allow")).toMatch(/^Allows any command Lathe can read word by word \(never one with substitutions/);
    expect(describeBashRule("npm test", "allow")).toBe('Allows exactly "npm test", nothing added.');
    expect(describeBashRule("npm run test:*", "allow")).toBe('Allows exactly "npm run test:*", nothing added. A * inside a word matches any characters of that word only.');
    expect(describeBashRule("npm test *", "allow")).toBe(
      'Allows "npm test" followed by any arguments, except options that make it run other code (such as git -c or npm --script-shell).',
    );
  });
});

describe("names and quoting", () => {
  it("a command word's name: after the last / or \\, folded without a Windows extension when asked", () => {
    expect(commandName("/usr/bin/Git", false)).toBe("Git");
    expect(commandName("C:\\Tools\\GIT.EXE", true)).toBe("git");
    expect(commandName("run.cmd.sh", true)).toBe("run.cmd.sh");
  });

  it("quotes a word only when it needs it", () => {
    expect(quotePatternWord("src/a-b_c.ts")).toBe("src/a-b_c.ts");
    expect(quotePatternWord("")).toBe("''");
    expect(quotePatternWord("two words")).toBe("'two words'");
    expect(quotePatternWord("it's")).toBe("'it'\\''s'");
    expect(parseBashPattern(`echo ${quotePatternWord("a*b")}`).words).toEqual(["echo", "a*b"]);
  });
});
