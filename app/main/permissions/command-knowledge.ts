// What the permission policy knows about particular commands, as data: wrappers that pass a
// command through (judged by the command inside), commands that run their arguments as commands
// (never allowed by a rule), interpreters (proposals name the exact command), destructive commands
// (exact proposals with a warning), options and environment variables that make a command run
// other code (a rule's `*` never covers them), and commands that change the working folder.
// Pure data and small pure helpers; never throws. The long word lists are kept wrapped by hand
// (prettier-ignore), not one word per line.

/** Wrappers that only pass a command through: the command inside is judged instead. */
export const PASS_THROUGH: Record<string, { flags: string[]; valued: string[]; positional?: number }> = {
  time: { flags: ["-p"], valued: [] },
  nice: { flags: [], valued: ["-n", "--adjustment"] },
  timeout: { flags: ["--preserve-status", "--foreground", "-v", "--verbose"], valued: ["-s", "--signal", "-k", "--kill-after"], positional: 1 },
  env: { flags: ["-i", "--ignore-environment", "-0", "--null"], valued: ["-u", "--unset"] },
  command: { flags: ["-p"], valued: [] },
  builtin: { flags: [], valued: [] },
};

/**
 * Commands that run (some of) their arguments as a command or a script: no rule allows them.
 * For deny rules the command inside is still found (see unwrapForDeny in shell-commands.ts).
 */
export const RUNS_ARGUMENTS: Record<string, string> = {
  exec: "replaces the shell with the command in its arguments",
  eval: "runs its arguments as shell code",
  source: "runs a file's commands in this shell",
  ".": "runs a file's commands in this shell",
  nohup: "runs its arguments as a command",
  sudo: "runs its arguments as a command, as another user",
  doas: "runs its arguments as a command, as another user",
  su: "runs a command as another user",
  runuser: "runs a command as another user",
  xargs: "runs its arguments as a command, with input appended",
  parallel: "runs its arguments as commands",
  watch: "runs its arguments as shell code, repeatedly",
  setsid: "runs its arguments as a command",
  stdbuf: "runs its arguments as a command",
  ionice: "runs its arguments as a command",
  taskset: "runs its arguments as a command",
  chroot: "runs its arguments as a command",
  flock: "runs its arguments as a command",
  unbuffer: "runs its arguments as a command",
  script: "runs a command in a new terminal",
  strace: "runs its arguments as a command",
  ltrace: "runs its arguments as a command",
  fakeroot: "runs its arguments as a command",
  eatmydata: "runs its arguments as a command",
  "systemd-run": "runs its arguments as a command",
  trap: "runs shell code when a signal arrives",
  alias: "defines an alias, which changes what later words run",
  unalias: "changes what later words run",
  enable: "changes which builtins run",
  hash: "changes which program a command name runs",
  coproc: "runs a command as a coprocess",
};

/** Shells: `sh -c '...'` runs a string; `sh script` runs a file. Both run arbitrary code. */
export const SHELLS = new Set(["sh", "bash", "dash", "zsh", "ksh", "mksh", "fish", "csh", "tcsh", "ash", "busybox"]);

/** Interpreters and runners of other code: "always allow" proposes the exact command only. */
// prettier-ignore
export const INTERPRETERS = new Set([
  ...SHELLS,
  "python", "python2", "python3", "pypy", "pypy3", "node", "nodejs", "deno", "bun", "bunx", "tsx", "ts-node", "npx", "pnpx", "uvx",
  "perl", "ruby", "php", "lua", "luajit", "Rscript", "julia", "java", "awk", "gawk", "mawk", "nawk", "sed", "osascript", "pwsh",
  "powershell", "env", "xargs",
]);

/** Subcommands that run a named package's or project's code (npm exec, yarn dlx, go run ...). */
export const RUNS_CODE_SUBCOMMANDS: Record<string, string[]> = {
  npm: ["exec", "x"],
  pnpm: ["exec", "dlx"],
  yarn: ["exec", "dlx"],
  uv: ["run", "tool"],
  go: ["run", "generate"],
  cargo: ["run", "install"],
  dotnet: ["run"],
  poetry: ["run"],
  pipenv: ["run"],
  pipx: ["run"],
};

/**
 * Commands whose second word is a subcommand (`git status`, `npm test`, `make lint`): "always allow"
 * keeps it in the rule (`git status *`). Any other command's rule is its name and `*` (`sleep *`,
 * `echo *`), so eight calls that differ only in their arguments need one rule.
 */
// prettier-ignore
export const HAS_SUBCOMMANDS = new Set([
  "git", "npm", "pnpm", "yarn", "bun", "deno", "cargo", "go", "rustup", "pip", "pip3", "uv", "poetry", "pipenv", "pipx", "conda",
  "make", "just", "task", "gradle", "gradlew", "./gradlew", "mvn", "./mvnw", "dotnet", "swift", "flutter", "dart", "mix", "stack",
  "cabal", "bundle", "rails", "rake", "gem", "composer", "docker", "podman", "kubectl", "helm", "terraform", "gh", "glab",
  "brew", "apt", "apt-get", "dnf", "systemctl", "nx", "turbo", "lerna", "ng", "vue", "rush", "pre-commit", "tox", "nox", "hatch",
]);

/** Destructive commands: "always allow" proposes the exact command and warns. */
export function destructiveWarning(words: readonly string[]): string | undefined {
  const [name, ...args] = words;
  const has = (...options: string[]) => args.some((a) => options.includes(a) || options.some((o) => /^-[a-zA-Z]$/.test(o) && /^-[a-zA-Z]+$/.test(a) && a.includes(o[1]!)));
  switch (name) {
    case "rm":
    case "rmdir":
    case "shred":
    case "unlink":
    case "truncate":
    case "dd":
    case "mkfs":
    case "wipefs":
      return `${name} destroys data: the rule allows only this exact command.`;
    case "git": {
      const sub = args.find((a) => !a.startsWith("-"));
      if (sub === "push" && has("--force", "-f", "--force-with-lease", "--mirror", "--delete", "-d"))
        return "git push that rewrites or deletes remote history: the rule allows only this exact command.";
      if (sub === "reset" && has("--hard", "--merge", "--keep")) return "git reset that discards work: the rule allows only this exact command.";
      if (sub === "clean") return "git clean deletes untracked files: the rule allows only this exact command.";
      if ((sub === "checkout" || sub === "restore") && args.includes(".")) return "discards uncommitted changes: the rule allows only this exact command.";
      if (sub === "branch" && has("-D", "--delete")) return "deletes a branch: the rule allows only this exact command.";
      if (sub === "stash" && args.some((a) => a === "drop" || a === "clear")) return "drops stashed work: the rule allows only this exact command.";
      if (sub === "filter-branch" || sub === "filter-repo") return "rewrites history: the rule allows only this exact command.";
      return undefined;
    }
    default:
      return undefined;
  }
}

/**
 * Options that make a command run other code, work somewhere else, or write a file it names (a
 * `git diff *` rule must not let `git diff --output=~/.bashrc` plant a line in a shell's startup
 * file). A rule's trailing `*` never covers these words: only a rule that names them does.
 * Matched as the whole word or `option=...`.
 */
// prettier-ignore
export const CODE_RUNNING_OPTIONS: Record<string, string[]> = {
  git: ["-c", "--config-env", "--exec-path", "-C", "--git-dir", "--work-tree", "--namespace", "--upload-pack", "--receive-pack", "-u", "--exec", "-x", "--ext-diff", "--open-files-in-pager", "-O", "--extcmd", "--tool", "-t", "--output", "--output-directory"],
  npm: ["--script-shell", "--prefix", "-C", "--node-options", "--userconfig", "--globalconfig", "--git", "--shell", "--editor", "--browser", "--viewer", "--init-module", "--onload-script", "--node-gyp", "--call", "-c", "--workspace", "-w", "--workspaces", "--ws"],
  pnpm: ["--script-shell", "--dir", "-C", "--prefix", "--node-options", "--shell-emulator", "--filter", "-F", "--recursive", "-r", "--workspace-root", "-w"],
  yarn: ["--cwd", "--script-shell", "--rc-filename", "--use-yarnrc"],
  npx: ["--call", "-c", "--package", "-p", "--prefix", "--node-options", "--script-shell", "--shell"],
  make: ["-f", "--file", "--makefile", "-C", "--directory", "--eval", "-E", "-I", "--include-dir"],
  cargo: ["--config", "-Z", "--manifest-path", "-C"],
  tar: ["--to-command", "--use-compress-program", "-I", "--checkpoint-action", "--info-script", "-F", "--new-volume-script", "--rsh-command"],
  rsync: ["-e", "--rsh", "--rsync-path"],
  ssh: ["-o", "-F"],
  scp: ["-o", "-F", "-S"],
  zip: ["-TT", "--unzip-command"],
  sort: ["--compress-program", "-o", "--output"],
  find: ["-exec", "-execdir", "-ok", "-okdir", "-delete", "-fprint", "-fprint0", "-fprintf", "-fls"],
  sed: ["-i", "--in-place", "-e", "--expression", "-f", "--file"],
  pytest: ["-p", "--confcutdir", "--rootdir", "-c", "--override-ini", "-o"],
  docker: ["-v", "--volume", "--mount", "--privileged", "--entrypoint", "-H", "--host", "--context"],
  less: ["-e"],
  man: ["-P", "--pager", "-H", "--html"],
  go: ["-exec", "-toolexec", "-overlay", "-C"],
  tsc: ["--project", "-p"],
  vitest: ["--config", "-c", "--root", "-r", "--dir"],
  jest: ["--config", "-c", "--rootDir"],
  eslint: ["--config", "-c", "--rulesdir", "--plugin", "--resolve-plugins-relative-to"],
  prettier: ["--config", "--plugin"],
};

/** Matches `word` against a command's code-running options (`-c`, `--prefix=x`, `-Cdir`). */
export function isCodeRunningOption(command: string, word: string): boolean {
  // `make CC=...` or `make SHELL=...` overrides what the Makefile runs.
  if (command === "make" && /^[A-Za-z_][A-Za-z0-9_.]*[:+?!]?=/.test(word)) return true;
  const options = CODE_RUNNING_OPTIONS[command];
  if (!options || word.charCodeAt(0) !== 45) return false;
  const long = word.charCodeAt(1) === 45;
  // A long option's name (up to `=`), made once: in the loop no strings or closures are made.
  const equals = long ? word.indexOf("=", 2) : -1;
  const name = long && equals !== -1 ? word.slice(0, equals) : word;
  for (const o of options) {
    if (word.startsWith(o) && (word.length === o.length || word.charCodeAt(o.length) === 61)) return true; // the option, or `option=value`
    if (long) {
      // getopt_long takes any unambiguous start of a long option: `--comp=` is --compress-program.
      if (name.length >= 3 && o.length > name.length && o.charCodeAt(1) === 45 && o.startsWith(name)) return true;
    } else if (o.length === 2 && isAsciiLetter(o.charCodeAt(1))) {
      // A cluster of short options (`-uo`, `-ni`), or the option with its value (`-cVALUE`).
      if (word.charCodeAt(1) === o.charCodeAt(1)) return true;
      for (let i = 2; i < word.length && isAsciiLetter(word.charCodeAt(i)); i++) if (word.charCodeAt(i) === o.charCodeAt(1)) return true;
    }
  }
  return false;
}

function isAsciiLetter(c: number): boolean {
  return (c >= 65 && c <= 90) || (c >= 97 && c <= 122);
}

/**
 * Environment variables that make programs run other code or load other files. A name is one of
 * these when it is listed, or starts or ends with a listed part, except the few that only tune
 * output or a build's target (SAFE_VARIABLES), so `CI=1 npm test` or `NODE_ENV=test vitest` stay
 * allowed by their rules. Case counts, as it does for the shell and the programs, except for npm's
 * configuration, which npm reads whatever its case (`Npm_Config_Script_Shell`).
 */
// prettier-ignore
const CODE_RUNNING_VARIABLES = new Set([
  "PAGER", "GIT_PAGER", "MANPAGER", "SYSTEMD_PAGER", "EDITOR", "VISUAL", "GIT_EDITOR", "SEQUENCE_EDITOR", "GIT_SEQUENCE_EDITOR",
  "BROWSER", "SHELL", "BASH_ENV", "ENV", "PROMPT_COMMAND", "PS4", "IFS", "PATH", "CDPATH", "HOME", "GLOBIGNORE", "SHELLOPTS", "BASHOPTS",
  "CLASSPATH", "LESSOPEN", "LESSCLOSE", "SSH_ASKPASS", "SUDO_ASKPASS", "MAKEFLAGS", "MFLAGS", "GNUMAKEFLAGS", "MAKEFILES",
  "CC", "CXX", "CPP", "LD", "AR", "AS", "NM", "RANLIB", "STRIP", "FC", "OBJC", "HOSTCC", "LDSHARED",
  "CFLAGS", "CXXFLAGS", "CPPFLAGS", "LDFLAGS", "PROMPT", "TERMINAL", "ZDOTDIR", "FPATH", "TMPDIR", "GCONV_PATH", "KUBECONFIG", "EMACSLOADPATH",
  "GOFLAGS", "GOENV", "GOTOOLCHAIN", "GOROOT", "GOPATH", "GOPROXY", "GOBIN", "GOCACHE", "GOMODCACHE", "GOWORK", "GO111MODULE", "GOPRIVATE",
  "GONOPROXY", "GONOSUMDB", "GOSUMDB", "GOINSECURE", "GOEXPERIMENT", "GOGCCFLAGS", "GOCOVERDIR",
]);
// prettier-ignore
const CODE_RUNNING_VARIABLE_PREFIXES = [
  "LD_", "DYLD_", "GIT_", "npm_config_", "NPM_CONFIG_", "YARN_", "PNPM_", "BUN_", "DENO_", "NODE_", "ELECTRON_", "CARGO_", "RUSTC", "RUSTDOC",
  "RUSTUP_", "RUSTFLAGS", "BASH_FUNC_", "CGO_", "PYTHON", "PYTEST_", "PIP_", "UV_", "POETRY_", "CONDA", "VIRTUAL_ENV", "PERL", "RUBY", "GEM_",
  "BUNDLE_", "JAVA", "_JAVA", "JDK_", "MAVEN_", "GRADLE_", "DOTNET_", "COMPOSER_", "PHP", "LUA_", "JULIA_", "R_", "CMAKE_", "CCACHE_",
  "DISTCC_", "PKG_CONFIG", "XDG_", "DOCKER_", "OPENSSL_", "SSL_", "CURL_", "WGET", "HG", "SVN_", "TF_", "ANSIBLE_",
];
const CODE_RUNNING_VARIABLE_SUFFIXES = ["PAGER", "EDITOR", "_OPTIONS", "_OPTS", "_PATH", "_HOME", "_CONFIG", "_SHELL", "_WRAPPER", "_COMMAND", "_CMD", "_HOOK", "_PLUGINS"];
/** Covered by a prefix above, yet only tune output, logging or a build's target. */
// prettier-ignore
const SAFE_VARIABLES = new Set([
  "NODE_ENV", "NODE_NO_WARNINGS", "PYTHONUNBUFFERED", "PYTHONDONTWRITEBYTECODE", "PYTHONHASHSEED", "PYTHONIOENCODING", "PYTHONUTF8",
  "CGO_ENABLED", "RUST_BACKTRACE", "RUST_LOG",
]);

// Loops rather than some() and a regex: judged for every assignment of every command line, it
// makes no closure or match state.
export function isCodeRunningVariable(name: string): boolean {
  if (SAFE_VARIABLES.has(name)) return false;
  if (CODE_RUNNING_VARIABLES.has(name)) return true;
  // npm reads its configuration from the environment whatever the case.
  if (name.length > 11 && name.slice(0, 11).toLowerCase() === "npm_config_") return true;
  for (let i = 0; i < CODE_RUNNING_VARIABLE_PREFIXES.length; i++) if (name.startsWith(CODE_RUNNING_VARIABLE_PREFIXES[i]!)) return true;
  for (let i = 0; i < CODE_RUNNING_VARIABLE_SUFFIXES.length; i++) if (name.endsWith(CODE_RUNNING_VARIABLE_SUFFIXES[i]!)) return true;
  return false;
}

/** Commands that change the working folder of the commands after them. */
export const CHANGES_FOLDER = new Set(["cd", "pushd", "popd"]);

/** Builtins without effects that need no rule: `[ -d x ]`, `true`. Only with literal words. */
export const EFFECT_FREE = new Set(["true", "false", ":", "test", "[", "pwd"]);

const PLAIN_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

/**
 * Whether a builtin evaluates some of its arguments as arithmetic or as an array subscript, where
 * bash expands `$(...)` even when the word was single-quoted: `test -v 'a[$(rm x)]'`,
 * `printf -v 'a[$(rm x)]' 1`, `read 'a[$(rm x)]'`, `declare -i n='a[$(rm x)]'`. And `let`, whose
 * plain names are evaluated again, recursively, as expressions. A null word was computed.
 */
const computedOrSubscript = (w: string | null) => w === null || /[[$`]/.test(w);

/** The names evaluatesCode knows; for any other it is false. */
export const EVALUATES_CODE = new Set(["let", "declare", "typeset", "local", "export", "readonly", "read", "unset", "mapfile", "readarray", "printf", "test", "["]);

export function evaluatesCode(name: string, args: readonly (string | null)[]): boolean {
  if (!EVALUATES_CODE.has(name)) return false;
  switch (name) {
    case "let":
      return true;
    case "declare":
    case "typeset":
    case "local":
    case "export":
    case "readonly":
      return args.some((w) => w === null || /[$`]/.test(w) || (/^-[a-zA-Z]*i/.test(w) && !w.startsWith("--")) || /^[^=]*\[/.test(w));
    case "read":
    case "unset":
    case "mapfile":
    case "readarray":
      return args.some((w) => w === null || (!w.startsWith("-") && computedOrSubscript(w)));
    case "printf":
      return args.some((w, i) => w === null || (w === "-v" ? computedOrSubscript(args[i + 1] ?? null) : w.startsWith("-v") && computedOrSubscript(w.slice(2))));
    case "test":
    case "[":
      return args.some((w, i) => w === "-v" && !PLAIN_NAME.test(args[i + 1] ?? ""));
    default:
      return false;
  }
}
