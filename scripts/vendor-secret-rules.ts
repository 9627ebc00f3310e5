// Regenerates the redaction rule set from gitleaks' default configuration (MIT licence), as
// data: app/main/permissions/secret-rules/gitleaks-rules.json, with the source commit and the
// licence recorded beside the rules. Run it when updating to a newer gitleaks release:
//   node scripts/vendor-secret-rules.ts path/to/gitleaks/config/gitleaks.toml COMMIT path/to/gitleaks/LICENSE
// Go (RE2) regular expressions are translated to JavaScript: a leading (?i)/(?s) becomes a flag,
// a (?i) inside a group becomes (?i: ... ) up to the group's end, POSIX classes become ranges,
// \z becomes $. Rules that apply only to certain file paths are left out (output has no path),
// and so is gitleaks' generic private-key rule, which redaction.ts handles as a block. Every
// translated rule must compile, or the script fails.
import { readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { parse } from "smol-toml";

interface TomlAllowlist {
  condition?: string;
  regexTarget?: string;
  regexes?: string[];
  stopwords?: string[];
  paths?: string[];
}
interface TomlRule {
  id: string;
  description?: string;
  regex?: string;
  path?: string;
  secretGroup?: number;
  entropy?: number;
  keywords?: string[];
  allowlists?: TomlAllowlist[];
}

const POSIX: Record<string, string> = {
  alnum: "a-zA-Z0-9",
  alpha: "a-zA-Z",
  digit: "0-9",
  xdigit: "0-9a-fA-F",
  upper: "A-Z",
  lower: "a-z",
  space: "\\s",
  word: "\\w",
  punct: "!-\\/:-@\\[-`{-~",
};

/** Go regexp syntax to a JavaScript source and flags. */
export function translateGoRegex(source: string): { source: string; flags: string } {
  let flags = "";
  let s = source;
  for (let m = /^\(\?([is]+)\)/.exec(s); m; m = /^\(\?([is]+)\)/.exec(s)) {
    flags += m[1]!;
    s = s.slice(m[0].length);
  }
  s = s
    .replace(/\[:([a-z]+):\]/g, (all, name: string) => POSIX[name] ?? all)
    .replace(/\\z/g, "$")
    .replace(/\\A/g, "^")
    .replace(/\(\?P</g, "(?<");
  // A (?i) inside the pattern applies to the end of its group.
  for (let at = s.indexOf("(?i)"); at !== -1; at = s.indexOf("(?i)")) {
    let depth = 0;
    let end = s.length;
    for (let i = at + 4; i < s.length; i++) {
      const c = s[i];
      if (c === "\\") i++;
      else if (c === "[") {
        for (i++; i < s.length && s[i] !== "]"; i++) if (s[i] === "\\") i++;
      } else if (c === "(") depth++;
      else if (c === ")") {
        if (depth === 0) {
          end = i;
          break;
        }
        depth--;
      }
    }
    s = `${s.slice(0, at)}(?i:${s.slice(at + 4, end)})${s.slice(end)}`;
  }
  return { source: s, flags: [...new Set(flags)].join("") };
}

function main(): void {
  const [tomlPath, commit, licensePath] = process.argv.slice(2);
  if (!tomlPath || !commit || !licensePath) throw new Error("usage: node scripts/vendor-secret-rules.ts gitleaks.toml COMMIT LICENSE");
  const config = parse(readFileSync(tomlPath, "utf8")) as unknown as { rules: TomlRule[]; allowlist?: TomlAllowlist };
  const failures: string[] = [];
  const rules = [];
  for (const rule of config.rules) {
    if (!rule.regex || rule.path || rule.id === "private-key") continue;
    const regex = translateGoRegex(rule.regex);
    try {
      new RegExp(regex.source, `${regex.flags}g`);
    } catch (error) {
      failures.push(`${rule.id}: ${(error as Error).message}`);
      continue;
    }
    const allowlists = (rule.allowlists ?? [])
      .filter((a) => !a.paths || a.paths.length === 0)
      .map((a) => ({
        condition: a.condition ?? "OR",
        regexTarget: a.regexTarget ?? "secret",
        regexes: (a.regexes ?? []).map(translateGoRegex),
        stopwords: a.stopwords ?? [],
      }));
    rules.push({
      id: rule.id,
      description: rule.description ?? "",
      regex,
      secretGroup: rule.secretGroup ?? 0,
      entropy: rule.entropy ?? 0,
      keywords: (rule.keywords ?? []).map((k) => k.toLowerCase()),
      allowlists,
    });
  }
  if (failures.length > 0) throw new Error(`rules that do not compile:\n${failures.join("\n")}`);
  const global = config.allowlist ?? {};
  const out = {
    source: "gitleaks default configuration (config/gitleaks.toml), https://github.com/gitleaks/gitleaks",
    commit,
    license: `MIT; see gitleaks-LICENSE beside this file`,
    generatedBy: "scripts/vendor-secret-rules.ts",
    globalAllowlist: { regexes: (global.regexes ?? []).map(translateGoRegex), stopwords: global.stopwords ?? [] },
    rules,
  };
  const dir = fileURLToPath(new URL("../app/main/permissions/secret-rules/", import.meta.url));
  writeFileSync(path.join(dir, "gitleaks-rules.json"), `${JSON.stringify(out, null, 1)}\n`);
  writeFileSync(path.join(dir, "gitleaks-LICENSE"), readFileSync(licensePath, "utf8"));
  console.log(`wrote ${rules.length} rules (of ${config.rules.length}) from gitleaks ${commit}`);
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) main();
