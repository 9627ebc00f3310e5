// Benchmark of the permission layer; prints ONE JSON line. Run with `npm run bench:permissions`.
// Figures (CPU time of this process, so the machine's other load counts less):
// - judgeUsP99: the 99th percentile of judging one 200-character compound bash command (parse
//   with tree-sitter-bash, analyse, resolve paths, match rules), parser loaded (target <= 500).
//   Median over 5 runs of 2,000 judgements; judgeUsP50 and the best run's p99 beside it.
// - redactMBps: streaming redaction of mixed command output (build and test logs, JSON, git
//   log, source, base64, a secret every ~20 KB) in 64 KB chunks with the full rule set and two
//   configured keys (target >= 200). Median of 3 runs over 24 MB; the best run beside it. First,
//   the secrets the scanner finds in a 512 KB sample must be exactly those of the rule-by-rule
//   reference scan (bench/support/secret-reference.ts): redactSecretsChecked says how many.
import { hostPlatform } from "../app/main/permissions/path-facts.ts";
import { callSubjects, decide } from "../app/main/permissions/policy.ts";
import { SecretScanner } from "../app/main/permissions/redaction.ts";
import { loadShellParser } from "../app/main/permissions/shell-parser.ts";
import type { PermissionRule } from "../app/main/store/index.ts";
import { referenceSpans } from "./support/secret-reference.ts";

const COMMAND =
  "cd packages/app && NODE_ENV=test npm test -- --reporter=dot --silent > test-output.log 2>&1 && git status --short | grep -v '^??' ; make build && ls -la dist/ | wc -l || echo 'build failed' >&2";
const rules: PermissionRule[] = [
  ["allow", "bash", "npm test *"],
  ["allow", "bash", "git status *"],
  ["allow", "bash", "grep *"],
  ["allow", "bash", "make build"],
  ["allow", "bash", "ls *"],
  ["allow", "bash", "wc *"],
  ["allow", "bash", "echo *"],
  ["allow", "write", "packages/**"],
  ["deny", "bash", "rm *"],
  ["deny", "bash", "git push --force"],
  ["deny", "edit", ".env"],
].map(([action, tool, pattern], i) => ({ id: i + 1, tool: tool!, pattern: pattern!, action: action as "allow" | "deny", scope: "project", scopeId: 1, createdAt: 0 }));

const cpuMs = () => {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1000;
};
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

function judgeRun(n: number): { p50: number; p99: number } {
  const times: number[] = [];
  for (let i = 0; i < n; i++) {
    const started = cpuMs();
    const decision = decide({ toolName: "bash", subjects: callSubjects("bash", { command: COMMAND }, process.cwd(), hostPlatform), rules, mode: "ask" });
    times.push((cpuMs() - started) * 1000);
    if (decision.action === "deny") throw new Error("unexpected denial");
  }
  times.sort((a, b) => a - b);
  return { p50: times[Math.floor(n * 0.5)]!, p99: times[Math.floor(n * 0.99)]! };
}

let seed = 42;
const random = () => (seed = (seed * 1103515245 + 12345) >>> 0) / 2 ** 32;
const pick = (alphabet: string, n: number) => Array.from({ length: n }, () => alphabet[Math.floor(random() * alphabet.length)]).join("");
const HEX = "0123456789abcdef";
const B64 = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
const ALNUM = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";

function mixedOutput(bytes: number): string {
  const lines: string[] = [];
  let size = 0;
  let sinceSecret = 0;
  const kinds = [
    () => `[12:0${Math.floor(random() * 10)}:1${Math.floor(random() * 10)}] INFO compiled src/components/Widget${Math.floor(random() * 500)}.tsx in ${Math.floor(random() * 90)}ms`,
    () => `  \u2713 test/unit/parser-${Math.floor(random() * 80)}.test.ts > handles input number ${Math.floor(random() * 1000)} (${Math.floor(random() * 40)} ms)`,
    () =>
      `{"id": ${Math.floor(random() * 1e6)}, "name": "widget-${pick(HEX, 6)}", "tags": ["alpha", "beta"], "updatedAt": "2026-03-0${Math.floor(random() * 9)}T10:00:00Z", "token_count": ${Math.floor(random() * 900)}, "api_version": "v2"}`,
    () =>
      `commit ${pick(HEX, 40)}\nAuthor: Dev Person <dev@example.com>\nDate:   Mon Mar 2 10:0${Math.floor(random() * 9)}:00 2026 +0100\n\n    Fix the key handling in the parser (#${Math.floor(random() * 900)})`,
    () => `const apiKey = process.env.API_KEY; // read the key from the environment, never log it (line ${Math.floor(random() * 400)})`,
    () => pick(B64, 76),
    () => `    at Object.<anonymous> (/home/user/project/src/module${Math.floor(random() * 50)}/index.js:${Math.floor(random() * 200)}:${Math.floor(random() * 40)})`,
    () => `npm warn deprecated package-${pick(HEX, 4)}@1.${Math.floor(random() * 9)}.0: this package is no longer supported, use the built-in API`,
    () =>
      `diff --git a/src/auth/session.ts b/src/auth/session.ts\n@@ -${Math.floor(random() * 90)},7 +${Math.floor(random() * 90)},8 @@ export function refreshToken(session: Session) {`,
  ];
  const secrets = [
    () => `GITHUB_TOKEN=ghp_${pick(ALNUM, 36)}`,
    () => `aws_access_key_id = AKIA${pick("ABCDEFGHIJKLMNOPQRSTUVWXYZ234567", 16)}`,
    () => `db_password = "${pick(ALNUM, 10)}9Qz"`,
    () => `Authorization: Bearer eyJ${pick(ALNUM, 30)}.eyJ${pick(ALNUM, 40)}.${pick(ALNUM, 43)}`,
  ];
  while (size < bytes) {
    let line = kinds[Math.floor(random() * kinds.length)]!();
    if (sinceSecret > 20_000) {
      line = secrets[Math.floor(random() * secrets.length)]!();
      sinceSecret = 0;
    }
    lines.push(line);
    size += line.length + 1;
    sinceSecret += line.length + 1;
  }
  return lines.join("\n");
}

function redactRun(text: string, scanner: SecretScanner): number {
  const stream = scanner.stream({ ansi: true });
  const started = cpuMs();
  let out = 0;
  for (let at = 0; at < text.length; at += 65_536) out += stream.push(text.slice(at, at + 65_536)).length;
  out += stream.end().length;
  const ms = cpuMs() - started;
  if (out === 0 || Object.keys(stream.found).length === 0) throw new Error("nothing was redacted");
  return text.length / 1e6 / (ms / 1000);
}

async function main(): Promise<void> {
  await loadShellParser();
  if (COMMAND.length < 190 || COMMAND.length > 210) throw new Error(`the command is ${COMMAND.length} characters`);
  judgeRun(500); // warm-up
  const judgeRuns = Array.from({ length: 5 }, () => judgeRun(2000));

  const literals = ["local-server-key-7f3a9c", "another-configured-key-99"];
  const scanner = new SecretScanner({ literals });
  const text = mixedOutput(24 * 1024 * 1024);
  const sample = `${text.slice(0, 512 * 1024)}\nX-Api-Key: ${literals[0]}\n`;
  const found = JSON.stringify(scanner.find(sample).map(({ start, end }) => ({ start, end })));
  const reference = referenceSpans(sample, literals);
  if (found !== JSON.stringify(reference)) throw new Error(`the scanner found ${found}, the reference ${JSON.stringify(reference)}`);
  redactRun(text.slice(0, 2_000_000), scanner); // warm-up
  const redactRuns: number[] = [];
  for (let i = 0; i < 3; i++) redactRuns.push(redactRun(text, scanner));

  console.log(
    JSON.stringify({
      judgeUsP99: Math.round(median(judgeRuns.map((r) => r.p99))),
      judgeUsP99Best: Math.round(Math.min(...judgeRuns.map((r) => r.p99))),
      judgeUsP50: Math.round(median(judgeRuns.map((r) => r.p50))),
      commandChars: COMMAND.length,
      redactMBps: Math.round(median(redactRuns)),
      redactMBpsBest: Math.round(Math.max(...redactRuns)),
      redactRules: scanner.ruleCount,
      redactSecretsChecked: reference.length,
    }),
  );
}

void main();
