// What a command line looks like it needs beyond the sandbox, read from its simple commands before
// it runs: the network (package installs, downloads, remote git), the real machine (commands the
// user listed, such as `git push` or `docker`), or paths outside the project. A heuristic for
// asking at the right moment; the sandbox itself is the boundary, and a need missed here shows up
// as an explained refusal instead. Pure; never throws.
import path from "node:path";
import { isInside } from "./rules.ts";

/** Commands that reach the network (rule patterns: `npm install *` matches `npm install` too). */
export const NETWORK_COMMANDS = [
  "curl *",
  "wget *",
  "git clone *",
  "git fetch *",
  "git pull *",
  "git push *",
  "git ls-remote *",
  "git submodule update *",
  "npm install *",
  "npm i *",
  "npm ci *",
  "npm update *",
  "npm publish *",
  "npm view *",
  "pnpm install *",
  "pnpm add *",
  "yarn",
  "yarn install *",
  "yarn add *",
  "pip install *",
  "pip3 install *",
  "pip download *",
  "uv sync *",
  "uv add *",
  "uv pip install *",
  "poetry install *",
  "cargo install *",
  "cargo fetch *",
  "cargo update *",
  "go get *",
  "go install *",
  "go mod download *",
  "gem install *",
  "bundle install *",
  "composer install *",
  "apt *",
  "apt-get *",
  "brew *",
  "ssh *",
  "scp *",
  "nc *",
  "ping *",
  "dig *",
  "nslookup *",
];

/**
 * The default list of commands that need the real machine (the user can edit it in Settings).
 * Commands that write the repository are here because the sandbox keeps `.git` read-only
 * (rules.ts): they would only fail inside it.
 */
export const DEFAULT_REAL_MACHINE_COMMANDS = [
  "git push *",
  "git add *",
  "git commit *",
  "git checkout *",
  "git switch *",
  "git reset *",
  "git merge *",
  "git rebase *",
  "git cherry-pick *",
  "git revert *",
  "git stash",
  "git stash push *",
  "git stash pop *",
  "git stash apply *",
  "git stash drop *",
  "git rm *",
  "git mv *",
  "git am *",
  "git init *",
  "docker *",
  "docker-compose *",
  "podman *",
  "kubectl *",
  "sudo *",
  "ssh *",
  "scp *",
  "gh *",
  "systemctl *",
];

/** Folders of installed software: a command naming them is not reaching into the user's files. */
const SYSTEM_ROOTS = [
  "/usr",
  "/bin",
  "/sbin",
  "/lib",
  "/lib32",
  "/lib64",
  "/libx32",
  "/etc",
  "/opt",
  "/dev",
  "/proc",
  "/sys",
  "/nix",
  "/snap",
  "/System",
  "/Library",
  "/Applications",
];

/** The first pattern of `patterns` any simple command of the line matches. */
export function firstMatch(parts: readonly string[], patterns: readonly string[], matches: (pattern: string, command: string) => boolean) {
  for (const part of parts) {
    const pattern = patterns.find((p) => matches(p, part));
    if (pattern) return { part, pattern };
  }
  return undefined;
}

/** Words of a simple command, quotes removed, redirection operators split off their targets. */
function words(part: string): string[] {
  const out: string[] = [];
  for (const match of part.matchAll(/"((?:[^"\\]|\\.)*)"|'([^']*)'|(\S+)/g)) {
    const word = match[1] ?? match[2] ?? match[3] ?? "";
    out.push(match[3] !== undefined ? word.replace(/^\d*(?:>>?|<|&>)/, "") : word);
  }
  return out;
}

/** Absolute paths the simple commands name outside the project and outside installed software. */
export function outsidePaths(parts: readonly string[], projectDir: string, home: string): string[] {
  const found = new Set<string>();
  for (const part of parts) {
    for (const word of words(part)) {
      if (!/^(?:\/|~(?:\/|$)|\.\.(?:\/|$))/.test(word) || word.includes("$")) continue;
      const resolved = word === "~" ? home : word.startsWith("~/") ? path.join(home, word.slice(2)) : path.resolve(projectDir, word);
      if (resolved === "/" || resolved === "/dev/null" || isInside(resolved, projectDir)) continue;
      if (SYSTEM_ROOTS.some((root) => isInside(resolved, root))) continue;
      found.add(resolved);
    }
  }
  return [...found];
}
