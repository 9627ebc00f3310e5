// Mutation testing (npm run test:mutation): StrykerJS with the Vitest runner over the loop, the
// permissions layer and the store, one folder at a time (scripts/mutation.mjs sets
// LATHE_MUTATE), each judged by the tests of that folder. Not in `npm test` or CI: it is slow (see
// docs/mutation-testing.md for the measured scores, how long runs take, and the surviving mutants
// known to be equivalent). Scope a run to files with `--mutate`, e.g.
// `LATHE_MUTATE=loop npx stryker run --mutate app/main/loop/coercion.ts`.

// Surviving mutants known to be equivalent (no test can tell them apart from the code), per file.
// Every other survivor in a measured file is either killed by a test or listed under "Open" in
// docs/mutation-testing.md. Line numbers are those of the source the scores were measured on.
//
// app/main/loop
// - tool-execution.ts, thrownDetails: the catch block emptied: the function falls off its end and
//   returns undefined either way.
// - tool-execution.ts, untilSettledOrAbandoned: `{ once: true }` on the abort listener (emptied or
//   false): an AbortSignal dispatches "abort" at most once, and the listener is removed when the
//   call settles.
// - tool-execution.ts, createToolResultMessage's `content ?? []` (not covered): a result without a
//   content list is refused before (toolResultProblem); afterToolCall's override falls back to the
//   tool's content.
// - tool-activation.ts, addedToolNamesThrough: the bound `messages.length - 1` made `+ 1`, and
//   `m?.role` made `m.role`: the bound keeps m defined; past the end there is nothing to add.
// - tool-arguments.ts, parseProblem: the `$` anchors removed: V8 puts "is not valid JSON" only at
//   the end of its message.
// - tool-call-bounds.ts, boundToolCalls: bounding every block, not tool calls only: text and
//   thinking blocks have no arguments, and exceedsBounds(undefined) is null.
//
// app/main/store
// - errors.ts, sqliteCode: "" made "Stryker was here!": no SQLite or file-system code equals it or
//   starts with it.
// - message-text.ts, searchableTextOfJson: the `typeof json !== "string"` check removed: any other
//   value makes JSON.parse throw (caught: null) or parses to a value without text blocks (null).
//   contentText: `typeof block === "object"` made true: a string or number block has no type "text".
// - event-log.ts, readSessionEvents: `catch { continue; }` emptied: payload stays undefined and the
//   next check skips the row all the same.
// - pages.ts, readTranscriptPage: `message.role === "toolResult"` made true (compaction entries have
//   no addedToolNames; the `?? []` after it is then not covered) and `message.role === "custom"` made
//   true (a marked tool result has no customType).
// - terminal-log.ts, append: the head check made true or `<=` (a full head has room 0); `if (rest ===
//   "") return` removed (an empty string changes neither the tail's text nor its length);
//   `#tailLength -= ...` and the drop loop's condition made false (more chunks kept in memory, but
//   tail cuts to tailChars when read: the memory bound is not observable through the API).
// - search-indexer.ts, schedule: `this.#timer.unref?.()` made `.unref()`: a Node timer always has
//   unref (the `?.` is for other hosts).
// - search-indexer.ts, close: `if (this.#timer !== null)` made true: clearTimeout(null) does nothing.
// - search-indexer.ts, #indexBatch: `behind.size === 0` made false: an empty set runs an empty
//   transaction that indexes 0.
// - search-indexer.ts, #indexBatchOf, the line that drops a session from the set: `count <= 0` made
//   false or `< 0`, and `!row || count <= 0` made `&&`: count is 0 only for a session already
//   indexed to its end (the `indexed >= size` break keeps `size - indexed` above 0), which
//   `row.done + count >= row.total` drops anyway, and a missing row makes count 0. The end check
//   made false, `>` or `row.done - count`: a session indexed to its end stays in the set until the
//   next batch, which finds count 0 and drops it: one more lookup, the same index.
// - search-indexer.ts, #indexBatchOf, `if (!row || count <= 0) continue`: made `&&`, `count < 0`
//   or false: with count 0 the batch reads no rows and writes the same watermark.
// - tool-calls.ts, toTime: `row.outcome !== null` made true: OUTCOMES.has(null) is false anyway.
// - tool-calls.ts, toolCallIdsOf: `m.role === "assistant"` made true: other roles' content is a
//   string (iterated as characters) or text and image blocks, none of type "toolCall".
// - repair.ts, completeDanglingToolCalls: `assistant.role !== "assistant"` made false: the row is
//   chosen by its role column, written from the same message (appendMessageRow); `calls.length ===
//   0` made false: with no calls the loop adds nothing and 0 is returned all the same.
// - repair.ts, reconcileCounters: `stored <= row.counted` made `<`: when equal, the update adds
//   sums over an empty range (0, and max(updated_at, 0)) and 0 is returned.
// - recorder-counters.ts, insert: `if (title !== null)` before the title update made true:
//   coalesce(title, null) leaves the title as it is.
// - recorder-counters.ts, write: `!this.lagging || !this.#base` made `&&`: lagging implies a base
//   (insert sets it); with a base but nothing lagging the update writes the counters they already
//   hold. And `if (this.#messages === 0)` in its apply step made true: write() and its apply step
//   bracket one transaction, so no insert is applied between them and #messages is 0 after every
//   apply.

/**
 * The permissions service and the six files only it uses answer the app (dialogs, questions,
 * the rules screen); only the whole-app tests reach them. They are their own target, judged by
 * those tests, so that the judge and redaction (the rest of the folder) are judged by fast unit
 * tests alone (vitest.mutation.config.ts says which tests each target leaves out).
 */
const PERMISSIONS_APP = ["permissions-service", "call-judge", "output-redaction", "questions", "call-summary", "mcp-rules", "rule-migration"].map(
  (file) => `app/main/permissions/${file}.ts`,
);

/** Which folder is mutated, and which tests judge it. */
const TARGETS = {
  loop: { mutate: ["app/main/loop/**/*.ts", "!app/main/loop/test/**"], dir: "app/main/loop" },
  permissions: { mutate: ["app/main/permissions/**/*.ts", ...PERMISSIONS_APP.map((file) => `!${file}`)], dir: "test/permissions" },
  "permissions-app": { mutate: PERMISSIONS_APP, dir: "test/permissions" },
  store: { mutate: ["app/main/store/**/*.ts"], dir: "test/store" },
};

const name = process.env.LATHE_MUTATE ?? "loop";
const target = TARGETS[name];
if (!target) throw new Error(`LATHE_MUTATE must be one of ${Object.keys(TARGETS).join(", ")}; got "${name}"`);

const config = {
  testRunner: "vitest",
  // Forks, as in npm test: node-pty is not thread-safe. One fork per Stryker worker.
  vitest: { configFile: "vitest.mutation.config.ts", dir: target.dir, related: false, pool: "forks" },
  mutate: target.mutate,
  coverageAnalysis: "perTest",
  // Module-level constants need a fresh module graph per mutant: slow, and they are tables and
  // messages; they are left out (reported as ignored, not counted).
  ignoreStatic: true,
  // The machine is shared by several people at once: two workers at most.
  concurrency: Number(process.env.LATHE_MUTATE_CONCURRENCY ?? 2),
  timeoutMS: 20_000,
  // The dry run of a whole folder's tests can take longer than Stryker's 5 minutes on a loaded
  // machine (permissions-app's whole-app tests did).
  dryRunTimeoutMinutes: 30,
  timeoutFactor: 2,
  reporters: ["clear-text", "progress", "html", "json"],
  htmlReporter: { fileName: `reports/mutation/${name}.html` },
  jsonReporter: { fileName: `reports/mutation/${name}.json` },
  // With --incremental, a later run (e.g. scoped with --mutate to one file) reuses this run's
  // results for unchanged code and tests, and keeps the results of files it does not mutate.
  incrementalFile: `reports/mutation/${name}-incremental.json`,
  thresholds: { high: 90, low: 85, break: 85 },
  // One folder per target, so two targets can run at once.
  tempDirName: `.stryker-tmp/${name}`,
  ignorePatterns: ["out", "dist", "reports", "screenshots", "test-results", ".stryker-tmp", "test/renderer", "bench"],
  cleanTempDir: "always",
};

export default config;
