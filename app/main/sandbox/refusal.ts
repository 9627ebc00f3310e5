// Recognises, in a failed sandboxed command's output, that the sandbox refused something: a write
// outside the writable folders (EROFS), a hidden path, the network, or a privileged operation
// (EPERM). The explanation tells the model what was blocked and how the user can allow it, so it
// neither retries blindly nor tries to get around the sandbox. A heuristic on the output's text:
// it may miss a refusal a program words its own way, and never blocks anything itself. Pure.
import path from "node:path";
import type { SandboxBlock } from "../../shared/sandbox.ts";
import type { SandboxRules } from "./rules.ts";

const READ_ONLY = /read-only file system|\bEROFS\b/i;
const NOT_PERMITTED = /operation not permitted|\bEPERM\b|no new privileges|effective uid is not 0|must be superuser/i;
const NETWORK =
  /could not resolve host|temporary failure in name resolution|name or service not known|network is unreachable|\bENETUNREACH\b|\bEAI_AGAIN\b|\bENOTFOUND\b|getaddrinfo|connection refused|\bECONNREFUSED\b|failed to connect to|could not connect to|failed to establish a new connection|unable to access '(?:https?|git|ssh):|no route to host|network error|nodename nor servname/i;
const MISSING_OR_DENIED = /no such file or directory|permission denied|\bENOENT\b|\bEACCES\b|not found|cannot open|can't open/i;

const RUN_OUTSIDE = 'the user can run it again outside the sandbox ("Run again outside the sandbox" on this command; Lathe asks before it runs)';

export function explainRefusal(output: string, rules: SandboxRules, home: string): SandboxBlock | undefined {
  const lines = output
    .split("\n")
    .map((l) => l.trim())
    .filter(Boolean);
  const find = (test: (line: string) => boolean) => lines.find(test);

  const hiddenNames = rules.hidden.flatMap((p) => {
    const rel = path.relative(home, p);
    return rel && !rel.startsWith("..") && !path.isAbsolute(rel) ? [p, `~/${rel}`] : [p];
  });
  const hiddenLine = find((l) => (MISSING_OR_DENIED.test(l) || READ_ONLY.test(l) ? hiddenNames.some((h) => mentions(l, h)) : false));
  if (hiddenLine) {
    const name = hiddenNames.find((h) => mentions(hiddenLine, h))!;
    return {
      rule: "hidden",
      evidence: clip(hiddenLine),
      message: `The sandbox hides ${name} from commands (it holds credentials or Lathe's own data), so the command saw it empty or missing. To use it, ${RUN_OUTSIDE}.`,
    };
  }
  const gitNamed = (l: string) => (rules.readOnly ?? []).find((p) => mentions(l, p) || mentions(l, path.relative(rules.cwd, p)));
  const gitLine = find((l) => (READ_ONLY.test(l) ? gitNamed(l) !== undefined : false));
  if (gitLine) {
    const where = path.relative(rules.cwd, gitNamed(gitLine)!);
    const what = where === ".git" ? "the project's .git folder" : `the git repository ${where} (a repository in a sub-folder)`;
    return {
      rule: "read-only",
      evidence: clip(gitLine),
      message: `The sandbox keeps ${what} read-only: git reads its config and runs its hooks outside the sandbox too, and no diff shows them, so commands that write the repository (git add, commit, checkout, stash...) run outside the sandbox. ${RUN_OUTSIDE.charAt(0).toUpperCase()}${RUN_OUTSIDE.slice(1)}.`,
    };
  }
  const readOnly = find((l) => READ_ONLY.test(l));
  if (readOnly) {
    return {
      rule: "read-only",
      evidence: clip(readOnly),
      message:
        `The sandbox refused a write: only the project folder (${rules.cwd}), the session's temporary folder ($TMPDIR) and the output folder are writable; the rest of the file system is read-only. ` +
        `Write inside the project or $TMPDIR instead if that serves; otherwise ${RUN_OUTSIDE}.`,
    };
  }
  if (!rules.network) {
    const network = find((l) => NETWORK.test(l));
    if (network) {
      return {
        rule: "network",
        evidence: clip(network),
        message:
          "The sandbox has no network (not even servers on this machine, 127.0.0.1 included). The user can allow network for this project in Settings, " +
          `approve this command with network by always allowing it in this project, or ${RUN_OUTSIDE.replace("the user can ", "")}.`,
      };
    }
  }
  const denied = find((l) => NOT_PERMITTED.test(l));
  if (denied) {
    return {
      rule: "not-permitted",
      evidence: clip(denied),
      message: `The sandbox refused a privileged operation (no sudo or setuid programs, no mounts, no signals to processes outside it). If the command needs that, ${RUN_OUTSIDE}.`,
    };
  }
  return undefined;
}

/** What the model is told after the command's own output. */
export function refusalNote(block: SandboxBlock): string {
  return `[Sandbox: this command ran in Lathe's sandbox, which blocked it (${JSON.stringify(block.evidence)}). ${block.message} Do not try to get around the sandbox; say what you need and why.]`;
}

function mentions(line: string, p: string): boolean {
  const at = line.indexOf(p);
  if (at < 0) return false;
  const next = line.charAt(at + p.length);
  return next === "" || next === "/" || next === "'" || next === '"' || next === ":" || next === " " || next === "`" || next === "’";
}

function clip(line: string): string {
  return line.length > 300 ? `${line.slice(0, 300)}…` : line;
}
