// What the bash tool hands the model for a fixed set of commands: the result text, line and byte
// counts, truncation, redactions and the saved file (its size and SHA-256). The cases cover plain
// output, colours, carriage-return progress bars, CRLF, control characters, Unicode, long lines,
// truncation by lines and by bytes, and secrets (whole, split across writes, inside colours, a key
// block). test/tools/fixtures/bash-golden.json holds what the tool produced before the output path
// was rewritten for speed (issue 16); bash-golden.test.ts checks that it still produces exactly that.
// Regenerate (only when a change to the model's view is intended):
//   node test/tools/bash-golden.ts --write
import { createHash } from "node:crypto";
import { readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { scannerFor } from "../../app/main/permissions/redaction.ts";
import { createBashTool, type BashDetails } from "../../app/main/tools/bash.ts";
import { runTool, tempDir } from "./helpers.ts";

const TOKEN = "ghp_" + "A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8";
const KEY_BODY = Array.from({ length: 8 }, (_, i) => `${"MIIEvQIBADANBgkqhkiG9w0BAQEFAASC".slice(i)}${"Zm9vYmFyYmF6cXV4".repeat(3)}`.slice(0, 64)).join("\\n");

/** [name, command]: deterministic output, no paths of the machine. */
export const GOLDEN_CASES: [string, string][] = [
  ["plain", "printf 'hello\\nworld\\n'"],
  ["colours", "printf '\\033[31mred\\033[0m and \\033[1;32mbold green\\033[0m\\n\\033[4munderlined\\033[24m\\n'"],
  ["progress bar", "for i in 10 50 100; do printf '\\r%s%%' $i; sleep 0.02; done; echo; echo after"],
  ["progress with colours", "printf 'Downloading \\033[33m[###   ]\\033[0m 50%%\\r'; sleep 0.05; printf 'Downloading \\033[33m[######]\\033[0m 100%%\\n'; echo done"],
  ["crlf written", "printf 'dos line\\r\\nnext\\r\\n\\r\\nlast\\r\\n'"],
  ["carriage returns", "printf 'a\\rb\\rc\\nx\\r\\ny\\r\\r\\nz\\r'"],
  ["control characters", "printf 'bell\\a tab\\there back\\bspace form\\ffeed nul\\0x del\\177 vt\\v esc\\033 end\\n'"],
  ["osc title and 8-bit csi", "printf '\\033]0;window title\\007text \\302\\23331mcsi\\n\\033]8;;http://x\\033\\\\link\\033]8;;\\033\\\\\\n'"],
  ["unicode", "printf 'h\\303\\251llo w\\303\\266rld \\342\\234\\223 \\346\\227\\245\\346\\234\\254\\350\\252\\236 \\360\\237\\230\\200\\n'"],
  ["no final newline", "printf 'first\\nno newline at end'"],
  ["no output", "true"],
  ["exit code", "echo failing; exit 3"],
  ["stderr", "echo out; echo err >&2; echo out2"],
  ["tabs", "printf 'a\\tb\\tc\\n\\tindented\\n'"],
  ["blank lines", "printf '\\n\\n\\nx\\n\\n\\n'"],
  ["many lines", "seq 1 5000"],
  ["wide lines", "yes 'a line of about one hundred characters, repeated so that the byte bound is what cuts the output' | head -n 1000"],
  ["one huge line", "head -c 200000 /dev/zero | tr '\\0' y; echo; echo tail"],
  ["spinner on one line", "i=0; while [ $i -lt 20000 ]; do printf '\\r%d' $i; i=$((i+1)); done; echo; echo finished"],
  [
    "huge coloured line with returns",
    "i=0; while [ $i -lt 3000 ]; do printf '\\033[3%dmchunk %05d\\033[0m ' $((i % 7)) $i; [ $((i % 700)) -eq 0 ] && printf '\\r'; i=$((i+1)); done; echo",
  ],
  ["mixed big output", "i=0; while [ $i -lt 3000 ]; do printf '\\033[32mPASS\\033[0m test %d\\r\\n' $i; i=$((i+1)); done; printf 'building [=====>    ]\\r'; echo 'built'"],
  ["secret", `echo 'token: ${TOKEN}'; echo next`],
  ["secret split across writes", `printf 'GITHUB_TOKEN=${TOKEN.slice(0, 17)}'; sleep 0.3; printf '${TOKEN.slice(17)} more\\n'`],
  ["secret in colours", `printf '\\033[32mok\\033[0m ${TOKEN.slice(0, 14)}\\033[1m${TOKEN.slice(14)}\\033[0m\\r\\n'`],
  ["secret after many lines", `seq 1 3000; echo 'export API_TOKEN=9f2c71e0b4d85a3361fe0c7b9a2d4e18'; seq 3001 3010`],
  ["configured key", "echo 'curl -H \"x-api-key: golden-configured-key-123\" http://localhost'"],
  ["private key", `printf -- '-----BEGIN PRIVATE KEY-----\\n${KEY_BODY}\\n-----END PRIVATE KEY-----\\nafter the key\\n'`],
];

export interface GoldenResult {
  isError: boolean;
  /** The text the model gets, with the saved file's path replaced by <FILE>. */
  text: string;
  exitCode: number | null;
  truncated: boolean;
  totalLines: number;
  totalBytes: number;
  redactions: Record<string, number>;
  /** The saved full output: size and SHA-256, or null when none was saved. */
  file: { bytes: number; sha256: string } | null;
}

export async function runGoldenCases(): Promise<Record<string, GoldenResult>> {
  const project = tempDir("lathe-golden-");
  const outputs = tempDir("lathe-golden-out-");
  try {
    const bash = createBashTool({ projectDir: project.dir, outputDir: outputs.dir, secrets: () => scannerFor(["golden-configured-key-123"]) });
    const results: Record<string, GoldenResult> = {};
    for (const [name, command] of GOLDEN_CASES) {
      const run = await runTool(bash, { command, timeout: 60 }, { keepUpdates: false });
      const details = (run.result?.details ?? (run.error as { details?: BashDetails } | undefined)?.details) as BashDetails | undefined;
      if (!details || details.phase !== "done") throw new Error(`${name}: no final details`);
      const file = details.outputFile ? readFileSync(details.outputFile) : null;
      results[name] = {
        isError: run.isError,
        text: details.outputFile ? run.text.replaceAll(details.outputFile, "<FILE>") : run.text,
        exitCode: details.exitCode,
        truncated: details.truncated,
        totalLines: details.totalLines,
        totalBytes: details.totalBytes,
        redactions: details.redactions ?? {},
        file: file ? { bytes: file.length, sha256: createHash("sha256").update(file).digest("hex") } : null,
      };
    }
    return results;
  } finally {
    project.cleanup();
    outputs.cleanup();
  }
}

export const GOLDEN_FILE = path.join(import.meta.dirname, "fixtures", "bash-golden.json");

if (process.argv[1] === import.meta.filename && process.argv.includes("--write")) {
  const results = await runGoldenCases();
  writeFileSync(GOLDEN_FILE, `${JSON.stringify(results, null, 2)}\n`);
  console.log(`wrote ${Object.keys(results).length} cases to ${GOLDEN_FILE}`);
}
