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
//   returns undefined either way. `error?.details` made `error.details`: for a thrown null or
//   undefined it throws a TypeError, which the catch turns into undefined all the same.
// - tool-execution.ts, untilSettledOrAbandoned: `timer !== undefined` made true before
//   clearTimeout: clearTimeout(undefined) does nothing.
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
// - tool-call-bounds.ts, boundStreamingToolCall: the guard before `withinBounds.has(args)`
//   (`typeof args === "object" && args !== null` made true or `||`, or either half made true):
//   WeakSet.has answers false for null or a primitive without throwing. (The same guard before
//   `add`, which would throw, is tested: units-edges.test.ts.)
// - agent-loop.ts, streamAssistantResponse: `event.type === "toolcall_delta" || event.type ===
//   "toolcall_end"` made true (bounding at every event): the block at another event's contentIndex
//   is a text or thinking block (the `block?.type === "toolCall"` check after it skips it) or, at
//   toolcall_start, a call whose arguments are the {} its stream function starts it with
//   (MessageBuilder.toolCallStart, the scripted model), which is within the bounds.
// - agent.ts, rebuildActiveTools: `this.messages.length - 1` made `+ 1`: activeToolNamesAt slices
//   the transcript to index + 1, so an index past the last message reads the whole transcript, as
//   the last one does (and an empty transcript gives the base set either way).
// - agent.ts, takeFrom: the default mode "one-at-a-time" made "": every mode but "all" takes one.
// - coercion.ts, coerceArray: the item's outcome's `converted: []` made `["Stryker was here"]`:
//   only the item's refusals are read; the conversion noted is the whole step, value to list.
// - validation.ts, validateToolArguments: `coerced.converted.length > 0` made true or `>= 0` before
//   the second check: with nothing converted, the coerced value is the arguments themselves
//   (coercion copies only what it converts), which the first check refused, so the second does too.
// - messages.ts, defaultConvertToLlm: the cache key "" made "Stryker was here!": a constant either
//   way (one conversion whatever the model).
// - incremental-conversion.ts, the returned converter: `cached.count > n` made false: a list
//   shorter than the prefix fails the next check all the same (its index count - 1 is past the
//   list's end: undefined, never the cached last message). `cached.count > 0` made true or `>= 0`:
//   with an empty prefix that check compares messages[start - 1] with undefined, and at most
//   replaces an empty prefix by another. The split loop's `split > cached.count` made `>=`: it may
//   then ask splitsBefore about the message at the prefix's end once more and stop one lower,
//   where `split > cached.count` after it converts nothing either way. `head.length > 0` made true
//   or `>= 0`: an empty head's concat is a new array equal to the slice. `start === 0 &&
//   cached.count === 0` made false: the tail is then `messages.slice(0)`, a copy of the list
//   instead of the list itself, which convert only reads (it is pure).
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
// - search-indexer.ts, #indexBatchOf, `if (advanced < count) behind.add(sessionId)` made true or
//   `<=`: a session indexed to its end goes back into the set; the loop over the set visits it again
//   (or the next batch does), finds count 0 and drops it, indexing nothing and counting no batch.
// - search-indexer.ts, `#cutShort = false` initially made true: #indexBatch clears it before
//   anything else, so the first batch never sees the initial value.
// - message-text.ts, contentText: `typeof block === "object"` made true: the content is JSON (parsed
//   or stored), where a truthy value that is no object is a string, number or boolean, whose `type`
//   is undefined, so `block.type === "text"` refuses it all the same.
// - tool-calls.ts, toTime: `row.outcome !== null` made true: OUTCOMES.has(null) is false anyway.
// - tool-calls.ts, toolCallIdsOf: `m.role === "assistant"` made true: other roles' content is a
//   string (iterated as characters) or text and image blocks, none of type "toolCall".
// - repair.ts, completeDanglingToolCalls: `assistant.role !== "assistant"` made false: the row is
//   chosen by its role column, written from the same message (appendMessageRow); `calls.length ===
//   0` made false: with no calls the loop adds nothing and 0 is returned all the same.
// - repair.ts, reconcileCounters: `stored <= row.counted` made `<`: when equal, the update adds
//   sums over an empty range (0, and max(updated_at, 0)) and 0 is returned.
// - recorder-counters.ts, #read: `row.hasTitle === 1` made false: insert then sets a titled
//   session's title through coalesce(title, ?), which keeps it, and single() sends a prompt
//   through a transaction instead of one statement: the same rows either way.
// - recorder-counters.ts, insert: `if (title !== null)` before the title update made true:
//   coalesce(title, null) leaves the title as it is.
// - recorder-counters.ts, write: `!this.lagging || !this.#base` made `&&`: lagging implies a base
//   (insert sets it); with a base but nothing lagging the update writes the counters they already
//   hold. And `if (this.#messages === 0)` in its apply step made true: write() and its apply step
//   bracket one transaction, so no insert is applied between them and #messages is 0 after every
//   apply.
// - recorder.ts: every `.unref?.()` made `.unref()` (counters, retry, output and batch timers): a
//   Node timer always has unref. `if (timer !== null) clearTimeout(timer)` made true (syncCounters,
//   close, #recovered) and `if (this.#timer === null) return` made false in #clearTimer:
//   clearTimeout(null) does nothing. In #handle, `event.message.role === "toolResult"` made true:
//   done(undefined) finds no log. `kind: "tool-end"` made "": #write's last branch and rowBytes take
//   any other kind as a tool end. In #drain, the single-statement path (`unit.kind === "message" &&
//   ... single(...)`) made false or its "message" made "": the unit then goes through the
//   transaction, with the same rows written. In #scheduleOutputs, `if (this.#outputTimer !== null)
//   return` made false: a second timer writes the same logs, and a write with nothing changed
//   writes nothing. In rowBytes, `row.kind === "tool-phase"` made true: starts and ends have no
//   reason (`?.length ?? 0` is 0). In #scheduleRetry's timer, `if (this.#failing)
//   this.#scheduleRetry()` made false or its call removed: a retry that leaves the recorder failing
//   failed in #drain, #flushOutputs or syncCounters, and each of those has already scheduled the
//   next retry.
// - terminal-log.ts, append: `#tailLength += rest.length` made `-=`, and the drop loop's
//   `>= this.#tailChars` made `>`: more chunks kept in memory, which the tail getter cuts to
//   tailChars (as for the loop's condition made false above); the loop's `this.#tail.length > 1`
//   made `>= 1` (a lone chunk is dropped only when tailChars is 0, where the tail read is "" either
//   way). `rest === ""` made `rest === "Stryker was here!"`: only a chunk equal to Stryker's marker
//   would tell. tail: `newline >= 0` made true: without a newline the cut is slice(-1 + 1), the
//   whole tail; `tail.length > this.#tailChars` made `>=`: slicing to its own length keeps it.
// - output-logs.ts, #writeOne: `error.failure !== "not-found"` with "not-found" made "": only a
//   StoreError thrown by `redact` could be "not-found" there (the statement's own failures are
//   mapped from SQLite codes, none to not-found), and redact must not throw; for the same reason
//   the not-found half made true. write: `changed.length === 0` made false: an empty transaction
//   writes nothing and 0 is returned.
// - checkpointer.ts: `.unref?.()` on the interval made `.unref()` (as above); `worker.unref()`
//   removed (and in driver-worker.ts, closeDriverWorker's `worker.unref()`, and its fallback
//   timer's `timer.unref()`, which the worker's exit clears at once unless the worker outlives
//   EXIT_WAIT_MS): a referenced worker or timer keeps the process alive after its tests, which no
//   test in that process can observe. The
//   worker's "error" and "exit" handlers made no-ops, or "exit" made "", one at a time: a worker
//   that fails emits both, and either one falls back. noteWrite's `this.#started ||` removed: a
//   later start returns at once (#start checks #started). #fallBack's and close()'s
//   clearInterval removed: #tick does nothing without a worker (the interval is unreferenced).
//   close()'s clearTimeout(#starting) removed: close sets #started, so the start returns at once.
//   checkpointNow: `row?.busy` made `row.busy` (the pragma always returns one row), the deadline's
//   `>=` made `>` (one more attempt in the same millisecond), Atomics.wait removed (the attempts
//   come without a pause; the same outcome). `#dirty = false` initially made true: #tick runs only
//   once a write has started the worker, and that write sets #dirty. noteWrite's whole guard made
//   false or `&&`, or `this.#starting !== null` made false: each extra start returns at once.
//   #fallBack's and close()'s `if (this.#timer !== null)` and close()'s `if (this.#starting !==
//   null)` made true, false or `===`: clearInterval(null) and clearTimeout(null) do nothing, and
//   the timers left are harmless as above.
// - search.ts, parseSnippet: `rest.length > 0` made `>= 0` (an empty rest pushes an empty part,
//   filtered out, and breaks), `open > 0` made true or `>= 0` (an empty part, filtered out),
//   `close < 0` made `<= 0` twice (close is searched from open + 1, never 0), and
//   indexOf(CLOSE, open + 1) made `open - 1` (a stray CLOSE before OPEN yields an empty match,
//   filtered out, then the same parts again). searchMessages: `query === exact && options.cursor ==
//   null` made false: the exact query runs again and returns the same first page.
// - search-words.ts, countWords: the pre-check on the raw word (`raw.length < MIN_WORD` made
//   false, `raw.length > MAX_WORD * 2` made false, the whole made false or `&&`) is a fast path:
//   folding changes no word's count of letters (`\p{M}` is not part of WORD, so a match holds no
//   combining mark, a precomposed letter folds to one letter, and NFC after removing the marks
//   recomposes what NFD split into letters: Hangul syllables), and isListable checks the folded
//   word against the same bounds.
// - search-words.ts, isListable: `units < MIN_WORD` made false, `units > MAX_WORD * 2` made false,
//   and the path that decides without counting (`units >= MIN_WORD * 2 && units <= MAX_WORD`)
//   made false, `>` or `<`: a word has at most as many code points as UTF-16 units and at least
//   half as many, so counting them decides the same.
// - session-lifecycle.ts, forkSession: `readMessage(...)?.role` made `.role` at `through` (checked to
//   be below messageCount, so the row exists), and the loop's bound `through + 1 < messageCount`
//   made true, `<=` or `through - 1` (past the end readMessage returns undefined, which `?.role`
//   reads as no tool result), or its `?.role` made `.role` (the bound keeps the row there). The
//   calls to copy: `m.role === "toolResult"` made true, or `[]` made `["Stryker was here"]`: other
//   messages give an undefined id (bound as NULL, which equals no row's id) or an id no call has.
// - open-database.ts, sizeOf: the catch emptied returns undefined instead of null for a missing
//   file; both callers treat the two alike (`=== 0` false, `!` true, `?? 0`). prepareConnection:
//   `{ deterministic: true }` emptied or false: the schema calls the function only in a view and
//   triggers, where SQLite does not ask for it (only indexes, generated columns and CHECK do).
//   probe: read-only's `fileMustExist: true` made false: openReadOnly checks that the file exists
//   just before. `size > 0` made true or `>= 0`: the integrity check of an empty file is "ok".
//   migrate: `process.platform !== "win32"` made true, or "win32" made "": the same on Linux.
// - folder-lock.ts, acquireFolderLock: `code === "SQLITE_LOCKED"` made false (or its text ""):
//   SQLite returns SQLITE_LOCKED for a conflict within one connection or a shared cache, which the
//   lock's own new connection never has; another process's lock is SQLITE_BUSY. release: `{ force:
//   true }` emptied or false: a missing description then throws ENOENT, which the catch ignores.
//   readHolder: `Atomics.wait` removed: the attempts come without a pause, with the same answers.
// - store-upkeep.ts, #afterCommit: `sessionWithNewMessages !== undefined` made true: the indexer's
//   set of sessions behind gets undefined, for which its batch finds no row and which it drops;
//   `this.#checkpointer?.noteWrite` made `.noteWrite`: only a read-only store has no checkpointer,
//   and it commits nothing. close: `this.#indexer.close()` removed: the indexer's timer is
//   unreferenced, and its batch returns at once on a closed database.
// - search-words-fill.ts, close: `if (this.#timer !== null)` made true: clearTimeout(null) does
//   nothing. The worker's answer, `answer.rows ?? []` (not covered): the worker answers rows or an
//   error, never neither.
// - messages.ts, usageOf: `message.role !== "assistant"` made false: other messages have no usage,
//   which counts 0 all the same. isMarked: `message.role === "toolResult"` made true: only tool
//   results have addedToolNames.
// - checkpointer.ts and driver-worker.ts, not covered: #start's catch (new Worker with an inline
//   script does not throw here) and driverPath's catch (better-sqlite3 is always installed here).
//   The same for search-words-fill.ts, start's catch around #startWorker (not covered).
// - search-words-fill.ts: the default `indexed` `() => 0` made `() => undefined`: its value is only
//   compared with itself. `.unref?.()` on both timers made `.unref()`, and `worker.unref()`
//   removed: as for checkpointer.ts above.
// - search-words-fill.ts, the worker's message handler: `this.#worker !== worker` made false, and
//   `this.#worker !== worker || !request` made `&&` or false: close() removes the fill's listeners
//   and start() never starts a second worker, so a message always comes from the current worker,
//   and a worker answers only a request, so `request` is set; only the database check can be true.
// - search-words-fill.ts, fillSlice: `if (this.complete) return true` made false: on a complete list
//   the loop's first #after() is undefined and it returns true all the same (after creating the
//   temporary vocabulary table). In the loop, `after === undefined` made false: `complete` found a
//   row, and each later iteration follows a #write that returned false, which it does only when the
//   row holds `after` (a slice is synchronous: no one else writes between its #after and #write).
//
// app/main/permissions
// - shell-parser.ts (branch h20f), loadShellParser: the guard on the parser's addresses
//   (`typeof addresses[0] === "number" && addresses[0] !== 0 && ...` made true, any of its four
//   parts made true, an `&&` made `||`): web-tree-sitter 0.27.2 (pinned) keeps a parser's address
//   at [0] and its input buffer's at [1], nonzero numbers once it is constructed; the guard is for
//   another version (the public walk then). `nodeTypeForId(id) ?? "ERROR"`'s "ERROR" made ""
//   (not covered): the pinned grammar names every one of its 280 types (an ERROR node's id,
//   65535, lies past them and is named by copy's own `?? "ERROR"`).
// - shell-parser.ts, the input callbacks: parseShell's `index < command.length` made true or
//   `<=`, and feedInput's `index < parseInput.length` made true or `<=`: slice at or past the end
//   is "" as well; feedInput's `index === 0` made false: slice(0) is the same text.
// - shell-parser.ts, parseShell and parseDirect: `!tree` made false, and the error's text (not
//   covered): web-tree-sitter returns no tree only for a parser without a language or a parse a
//   progress callback stops (Parser.parse's contract); the parser gets its language at load and
//   no progress callback is ever set (parseDirect clears it).
// - shell-parser.ts, parseDirect's finally: `parseInput = ""` made "Stryker was here!": feedInput
//   reads parseInput only during a parse, which sets it first; between parses it only decides
//   which string is kept alive.
// - shell-parser.ts, walk: `if (transient) childrenTaken.fill(0)` made true: only transient walks
//   read childrenTaken, and each fills it first.
// - shell-parser.ts, copy: `start === end` made true before `c.missing()`: the parser inserts a
//   MISSING node with no text, so it is always zero-width; the width test only spares the other
//   nodes a call into the module. The pooled node's first object (`{}`, `named: false`, `broken:
//   true`): each of its properties is assigned right after it is taken.
// - keyword-scan-wasm.ts (branch h20f; the module's bytes are excluded with a Stryker disable
//   comment that says why), createWasmScanner: `!WebAssembly` made false (without it, `new
//   WebAssembly.Memory` throws, and the catch returns undefined all the same); the catch block
//   emptied (not covered: the function then ends and returns undefined too). outBase's `+ 64 + 7`
//   made `+ 64 - 7` and `inputBase + GRAM_OFFSET_LIMIT` made `-`: a call writes at most
//   GRAM_OFFSET_LIMIT + WASM_INPUT_CHARS + FILTER_LOOKAHEAD bytes of text and 4 past them (47
//   past the 64 Ki), and the hits still start 46 or more bytes after that (the 64 of slack less 14
//   or 6, less at most 7 of rounding). The classes loop's `c < 256` made `<=` (classes[256] is past
//   the Uint16Array: the store is dropped) and `c < 128` made `<=` (classOf has 128 entries:
//   classOf[128] is undefined, 4 * undefined stored as 0, class 0, which byte 0x80, no control
//   byte, gets anyway). scan's `if (back > 0)` before the hits' shift made true or `>=`: with
//   back 0 the loop subtracts 0. The shift's `h < count * 2` made `<=` (branch h20i; it timed out
//   in h20f's run): it shifts one value past the pairs the call wrote (or past the buffer given:
//   the write is dropped); the automaton reads only the first `count * 2`, and a later call writes
//   its own pairs before they are read.
// - bash-rules.ts, the three caches (parsed patterns, old text meanings, word globs): `size > 2000`
//   made true, false, `>=` or `<=`, the clear() or set() removed, `if (!re)` made true: a cache
//   emptied more or less often, or never filled, gives the same answers (each entry is computed from
//   its key alone); only memory and time differ.
// - bash-rules.ts, parse: `words.length > 1` before taking a final `*` as "any arguments" made `>= 1`
//   or true: a pattern whose only word is a glob `*` is the text `*`, returned as the any pattern
//   before (a quoted or escaped `*` is no glob).
// - bash-rules.ts, allowMatches, `words[0] ?? ""` (not covered): a pattern with words reaches it only
//   for a command with at least as many words.
// - bash-rules.ts, shortOptionLetters: `o.slice(1)` made `o` adds "-" to the letters; only a rule
//   option with a "-" after its first character (`-a-`) would ask for it. describeBashRule:
//   `p.words.slice(1)` made `p.words` counts the command word as an option only when it starts with
//   "-". quotePatternWord: `word !== ""` made true, or "" made "Stryker was here!": the empty word
//   fails the character class anyway.
// - policy.ts, the caches of compiled path rules and name globs: `!byKind`, `!match` made true,
//   the size bounds (`> 2000` made true, false, `>=`, `<=`, the count's `++` made `--`), clear() or
//   set() removed: each entry is computed from its key alone; only memory and time differ.
// - policy.ts, `s.platform.platform === "win32"` in pathMatcher and absolutePattern (made true,
//   false, `!==`, or "win32" made ""): on a Linux host path facts hold no backslashes, and the test
//   paths are rooted the same way for both path modules; only Windows paths could tell.
// - policy.ts, decide: `s.warnings.slice()` made `s.warnings` (decide adds no warning to the list);
//   `toolName === "bash"` made true before the firm question (only bash subjects are opaque or hold
//   computed commands); the opaque reason's `?? "is not plain bash"` (not covered: an opaque line
//   always has a reason); in byMode, `part.kind === "command"` or `part.kind === "path"` made true
//   (the other kinds' needsNoRule and access are undefined, which gives the same); firm's
//   `p.kind === "path"` made true (other parts have no protection).
// - policy.ts, `r.action === "allow"` made true in the no-parts lookup and in allowRuleFor (command,
//   name and path rules): a deny rule that would allow the part has denied the call already (deny
//   rules match every form of a command or path, more loosely than allow rules); denyHit's
//   `toolName === "bash"` made true: other tools' subjects have no deny forms.
// - policy.ts, distinctInPlace: `list.length > 32` made true, false, `>=` or `<=`: both ways keep
//   the first of each reason in order. whyNot: `part.access === "write"` made true in the last
//   sentence (a read inside the project is allowed by default, so only writes reach it).
// - policy.ts, proposeRule: `p.kind === "path"` made true (commands have no access); the "allow"
//   given to describeBashRule and describePathRule made "" (both test for "deny" only); for other
//   tools, `part.kind !== "path"` made false (their parts are all paths), `dir === "/"` made false
//   (a root-level subject is outside the project, which gives the same), and the joins ("\n" and
//   " ") made "" (one path per call, so at most one pattern and one note). commandPattern:
//   `words[0] ?? ""` (not covered: a command part has a word), `sub !== undefined` made true
//   (includes(undefined) is false), `words.length === 1` made false (the head is the one word).
// - shell-folders.ts, union: `a.length + b.length > 32` made true, false, `>=`, `<=` or `-`:
//   largeUnion and the loop give the same list (and the same list object when nothing is added);
//   only the work differs. changeFolder: `new Array<Cwd>(cwds.length)` made `new Array()` (every
//   slot is assigned), and `cwd ?? "/"` with "/" made "" (not covered: reached only for an
//   absolute target, which resolves to itself from any folder).
// - shell-analysis.ts, analyzeShell: the shared reason set is emptied at the start of a call when
//   not empty and again after its reasons are copied out. The start's clearing is what empties it
//   after a call that threw (the parser not loaded; killed since branch hsplit by
//   shell-analysis-reasons.test.ts: made false or `<=`, clear() removed), so what survives is
//   `reasons.size > 0` at the start made true or `>=` (clearing an empty set) and the final clear()
//   removed (the next call's start empties it). `{ transient: true }` emptied or
//   false: a parse into fresh objects gives the same tree (transient only reuses node objects).
//   The end's `reasons.size > 0` made true or `>=`: an empty set copied gives an empty list again.
// - shell-analysis.ts, what the parser never gives (seen over the corpus and 30,000 random lines
//   of shell tokens): a pipeline's unnamed children are `|` and `|&` only (`child.type !== "|"
//   && ...` made false; unexpected() not covered); a redirected
//   statement's children are all named (`child.named` made true; unexpected() not covered); a
//   program has no "\n" child (newlines separate statements without a token: `child.type !==
//   "\n"` made true, "\n" made ""); a list of three children has `&&` or `||` (`op.type === "||"`
//   made true; unexpected(op) not covered), and with exactly three children (checked in the same
//   condition) left, op and right are all defined (`!left || !op`, `!left || !op || !right` made
//   false or `&&`: the checks narrow the types); every command has a command_name (`own[0]?.value` made `.value`); the children of
//   variable_assignments are all variable_assignment (its check made true); a declaration starts
//   with its keyword (`node.children[0]?.type` made `.type`; "a declaration" not covered); the
//   field `redirect` is given exactly to children whose type ends with `_redirect` (isRedirect:
//   `node.field === "redirect"` made false, "" or `&&`, endsWith made startsWith); the statement
//   types the switch does not name all have a NESTED_REASONS entry, and the redirections other
//   than file_redirect are here-documents and here-strings (both `contains ${describeNode(node)}`
//   fallbacks not covered).
// - shell-analysis.ts (branch h20i), treeReasons: the root's parent type (`parent?.type ?? ""`, ""
//   made "Stryker was here!"): brokenReason reads the parent type only for a zero-width broken
//   named node (an invented word), and the root never is one (a broken root is an ERROR node or a
//   tree cut at MAX_DEPTH, both holding text). (Branch hsplit) analyzeShell's `comments.end()`
//   removed: it only lets the line and the tree's nodes go between calls; begin() sets both
//   before the next walk reads them. namedByParser: `last!.type !==
//   "command_name"` made false: no node but a command ends with a zero-width child other than the
//   invented command name while its other children are all assignments, comments or redirections
//   (none over 120,000 random lines of shell tokens; a comment is a command's child only there,
//   `>o FOO=1 # c`, which the tests read).
// - shell-comments.ts (moved out of shell-analysis.ts by branch hsplit, with these survivors):
//   CommentCheck.end's `this.source = ""` made "Stryker was here!": it only decides which string
//   is kept alive between walks (begin sets it first). (Branch h20j) CommentCheck.leaf's
//   `node.end > node.start` made true or `>=` (zero-width leaves kept too): a zero-width leaf is
//   the invented command name (not walked), a here-document's empty content (its end marker
//   follows) or a token the parser invented in a line it cannot read; over 300,000 random lines
//   of shell tokens holding a `#`, none changed a reason. joinedComment: `from > start` made
//   false: the walk meets the leaves in the text's order, so no leaf before a comment ends after
//   it (none over another 300,000 such lines); kept as a defence that fails closed. pastNewline:
//   `i < to` made `<=`: the character at `to` begins a child, never a newline.
// - shell-analysis.ts (branch h20j), command: the newline check's `child.start < child.end` made
//   true or `<=`: a zero-width child (the invented command name) stands where the last child ends,
//   so it neither adds a newline nor moves the start of the next gap (no reason changed over
//   104,902 random lines of shell tokens holding a newline).
// - shell-analysis.ts, sequence: `last ?? stay(cwds)` made `&&`: only a program is a sequence, and
//   no one reads a program's flow (analyzeShell drops the walk's result, nestedIn its statements').
// - shell-analysis.ts, command: `previousWordEnd >= 0` made true or `> 0`: afterContinuations from
//   -1 returns -1, never a child's start, and no word ends at 0. `previousWordEnd = ... : -1` made
//   `+1` after a redirection: the next child starts past the redirection's target, which is not a
//   line continuation, so afterContinuations from 1 never reaches it.
// - shell-analysis.ts, test: `verdict.computed` made true: a verdict that is not computed is over
//   literal words, in which nestedIn finds no command and no computed part.
// - shell-analysis.ts, substitutionsIn: the children's check (`child.type ===
//   "command_substitution" || child.type === "process_substitution"`) made false or `&&`, either
//   operand made false, or their texts "": the child then goes to substitutionsIn, whose first
//   check finds the substitution itself. nestedIn: `!child.named` made false: a token has no
//   children, no COMPUTED_REASONS entry and no statement type.
// - call-parts.ts, callSubjects: `p.kind === "path"` made true in outsideProject and the warnings
//   (a path tool's parts are all paths). bashSubjects: factsOf's `!facts` made true (the facts of
//   a path, computed again, are the same); a redirection's `cwd ?? "/"` with "/" made "" (reached
//   only for an absolute target in a folder only known when it runs: path.resolve("", "/x") is
//   "/x"); `own`'s `forms.first < s.denyForms.length` made true, false, `<=` or `>=` (own is only
//   a list sharedAllowFormOf may take as the words when it holds exactly them, which it checks,
//   and denyForms[length] is undefined: the same words either way); `p.kind === "path"` made true
//   before `p.protection` (command parts have none).
// - path-facts.ts, the POSIX shortcuts around node:path (resolved, resolvedFrom, relativeInside's
//   prefix comparison): each answers what the node:path call it stands for answers for an
//   absolute normal path, and falls back to that call for any other (path-shortcuts.test.ts
//   checks them against those calls as oracles). So a mutant that takes the call where the
//   shortcut would do, or the shortcut for input it is never given here, answers the same:
//   `POSIX` made true or false in their conditions (`!POSIX` made `POSIX`), the first-character
//   checks (`charCodeAt(0) === 47` or `!== 47` made true, false, the other comparison, or `&&` for
//   `||`: every path they see is absolute, pathFacts resolves it first, and the host's realpath
//   answers absolute normal paths), resolved's whole condition made false, resolvedFrom's
//   `folder.length === 1` made false (`//x` is then resolved to /x), relativeInside's
//   `NOT_NORMAL.test(child)` made false (or `&&`: real paths are normal here; the tests reach the
//   general path through an unnormalized project folder) and its whole condition made true.
//   pathFacts: `given === real && root === realRoot` made false (givenRelative computed again is
//   the same).
// - tools/real-path.ts (path-facts.ts's realPathOf until branch hsplit shared it with the tools;
//   measured by this target): the POSIX shortcuts likewise (the walk by prefixes, below, which
//   stand for path.join and the walk up by dirname, and fall back to them): walkUpPrefixes's
//   `end === p.length` made false (p.slice(0, p.length) is p); its check of the answer
//   (`real.charCodeAt(0) !== 47 || NOT_NORMAL.test(real)`) made true, or its first operand made
//   false or `=== 47` (a realpath answers an absolute path: one starting with `/` on POSIX, and
//   path.join joins a normal one as the concatenation does); below's condition made true, or its
//   first operands made false, `&&`, `paths.sep === "/"`, "/" made "" or `charCodeAt(0) === 47`
//   (path.join joins plain names to a normal absolute folder as the concatenation does, and a
//   folder of the other flavour is turned away by the flavour's check first); plainName's block
//   emptied, made false, `name === ""`, `name.includes("/")` or "/" made "" (a name taken as not
//   plain goes to path.join, which joins plain names the same). hostRealpath: `!existsSync(p)`
//   made false (realpathSync.native throws for a missing path and the catch answers undefined the
//   same); the catch's block emptied (not covered: it returns undefined either way).
// - path-facts.ts, CallMemo: `i < pairs.length` made `<=` in get and set (pairs[length] is
//   undefined, never a key; a Map entry for undefined is never asked for), `pairs.length < 2 *
//   MEMO_LIST_PAIRS` made true, false, `<=`, `>=` or `2 /`: the pairs move to a Map sooner, later or
//   never, with the same answers (judge-reuse.test.ts checks them against a Map).
// - path-facts.ts, protectedPath: `k < 2` made `<=` (a third pass reads givenRelative again).
//   packageScriptsChange: `after === undefined` made false (JSON.parse(undefined) throws: undefined
//   all the same), `text === null` made false (JSON.parse(null) is null, whose scripts are "{}" as
//   well), the catch's block emptied (it returns undefined either way).
// - call-parts.ts, commandPart: `form.words[0] ?? ""` (not covered: every command has a first
//   word, "" for the missing one of `ls &&`, and wrappers never strip the last word);
//   needsNoRule's `form.words.slice(1)` made `form.words` (evaluatesCode is asked only for the
//   effect-free names, of which only test and [ look at their words, for a "-v" followed by a
//   word that is not a name: the name itself is neither).
// - sandbox-mode.ts, sandboxDecision: `input.mode === "full-auto"` made false (or its "full-auto"
//   ""): in full auto decide() allows every call it does not deny or ask firmly about (both returned
//   before), and full auto's plan is never a requested-outside crossing, so the allow is returned at
//   the next check.
// - sandbox-mode.ts, planPlacement, not covered: `?? ""` after the paths (a call outside the project
//   has a path: callSubjects sets outsideProject from its paths) and after `subjects.command` (bash
//   subjects always hold the command, "" when none was given).
// - command-forms.ts, allowForm: the fresh form `{ words: [], globbed: [], assignments: [] }` made
//   `{}` or its lists `["Stryker was here"]`: fillAllowForm sets all four fields. `words[0]?.value`
//   and `words[0]?.glob` made `.value`/`.glob`, and `values[0] ?? ""` (not covered): a command has
//   a word, and unwrapping keeps at least one. `assignments === command.assignments` made true: a
//   second copy of the list holds the same. `new Array<string>(words.length)` made `new Array()`
//   (here and in fillDenyForms): every slot is assigned.
// - command-forms.ts, runsCode: the guard `!RUNS_CODE_NAMES.has(name) && !(name in RUNS_ARGUMENTS)`
//   made false: a fast path; every check after it is false for other names.
// - command-forms.ts, evaluation: `words.slice(1)` made `words`: evaluatesCode then also sees the
//   name itself, which is no `-v`, has no `[`, `$` or backquote, and `let` is true either way.
// - deny-forms.ts, runShellString: `{ cwd: "/", home: "/" }` emptied or its "/" made "": the
//   folders a string's commands run in are not part of their forms.
// - deny-forms.ts, collect: the test before collectInside (`!LOOKED_INSIDE.has(name) && ...`)
//   made false: a fast path; collectInside looks at no other name.
// - deny-forms.ts, collectInside: `w !== null && /^-[a-zA-Z]*c[a-zA-Z]*$/.test(w)` with the
//   first part made true (`test(null)` reads "null", no option); shells' `if (name !== "su" &&
//   name !== "script") return` made false (no later branch takes a shell: busybox returned before);
//   the loop bounds of watch (`i <= operands.length`: an empty string of code runs nothing) and of
//   find (`i <= args.length`: `args[i] &&` is false past the end); find's `j > i` made `j >= i`
//   (args[i] is the -exec word, never `;` or `+`).
// - command-knowledge.ts, destructiveWarning: the option test `/^-[a-zA-Z]$/` without `^` or `$`:
//   every option it is given is a short option or starts with `--`, which neither variant admits.
//   `default:` emptied: the switch then ends with undefined all the same.
// - command-knowledge.ts, isCodeRunningOption: `word.charCodeAt(0) !== 45` made false (every
//   option starts with "-": startsWith fails for the word); `word.charCodeAt(1) !== 45` made true
//   (the word starts with the option, whose second character is a letter); isAsciiLetter's
//   mutants (true, `||`, `c > 65`, `c > 97`, `c < 122`): it is asked only about the second
//   character of a two-character option, a letter in every list, none of them A, a or z.
// - command-knowledge.ts, evaluatesCode: `!EVALUATES_CODE.has(name)` made false (the switch's
//   default is false; that default is not covered for the same reason), `!w.startsWith("--")`
//   made `!w.endsWith("--")` (the test before it already needs a letter or `i` second; only a word
//   such as `-i--` differs, which bash refuses as an invalid option), printf's `w.slice(2)` made
//   `w` (`-v` itself holds no `[`, `$` or backquote), and test's `args[i + 1] ?? ""` with ""
//   made "Stryker was here!" (no plain name either).
// - shell-redirects.ts, judgeFileRedirect: `target.value !== null` made true: DESCRIPTOR.test(null)
//   reads "null", no descriptor.
// - shell-test-checks.ts, testVerdict: `node.children[0]?.type` made `.type` (a test_command starts
//   with its bracket token), `op`'s "" made "Stryker was here!" (no operator compares equal to it
//   either), and `-v`'s `operands.some` made `every` (a unary `-v` has one operand).
// - shell-text-checks.ts, lookAlikeWarning: the first `NON_ASCII.test` made false (a fast path) and
//   the quoted parts replaced by "Stryker was here!" instead of "" (ASCII either way).
//   skippedTextReason: `skipSource = ""` after the walk made "Stryker was here!" (it only drops the
//   line), and visitLeaves' `if (skipped) return` made false (the walk goes on; skipped stays true).
// - shell-words.ts, wordOf: `node.type === "word"` made true (only number nodes then get interned,
//   with the same value), the fast paths `raw.includes("{")`, `raw.includes("[")` (made
//   `includes("")`) and `braces || brackets` made true (each expression looks for a `{` or `[` the
//   text would not hold), the blanked parts replaced by undefined's text, "", or the untaken ""
//   made "Stryker was here!" (no `{`, `[`, `,`, `}` or `]` and no blank either way), and the
//   bracket test `[\s\S]` made `[\S\S]` (unquoted, unescaped word text holds no blank).
// - shell-words.ts, append: raw_string's `Math.max(node.start + 1, ...)` made `node.start - 1` (a
//   raw_string spans both its quotes, so the end's bound is the larger). unquoted: `PLAIN_WORD`'s
//   fast path made false or emptied (the loop gives the same value); the trailing backslash
//   (`next === undefined`, its block not covered), `next !== "\n"` made true or "", `c === "$" &&
//   i < text.length - 1` made false (the rest not covered) and the operator characters' test made
//   false (its message not covered): the parser never leaves a lone final backslash, a line
//   continuation, a `$` before another character or an unquoted operator inside one word's text
//   (it splits the word or makes the `$` its own node, and shell-analysis.ts gives its reasons).
// - shell-words.ts, doubleQuoted: `child.end === end` made true (a `$` token is only ever the last
//   child: before anything else it starts an expansion), the message for an unknown child (not
//   covered: every child inside double quotes is string_content, `$` or a COMPUTED_REASONS type),
//   and the final `Math.max(pos, end)` made `Math.min` (text after the last child is left only
//   after an expansion, when the value is null already; in every line tried).
// - shell-words.ts, internedWord: `length <= 0` made false or `< 0` (a word node is never empty),
//   `c <= 32` made `c < 32` (a blank is never inside a word node's text), and "latin1" made "" in
//   Buffer.from (UTF-8 and Latin-1 read printable ASCII alike).
// - redaction.ts and secret-rules.ts (source as at the commit named in docs/mutation-testing.md;
//   branch h20d). The compile's branches for rule shapes the vendored set does not hold (AND
//   lists, lookbehinds, flags other than i, backreferences, 16 stopwords, ...) are tested with rule
//   sets of their own (compileSecretRules takes one); what is left of secret-rules.ts below holds
//   for any expression that compiles.
// - secret-rules.ts, keywordStart: `""` made "Stryker was here!" after `s[i + 1] ??` (not covered:
//   only an expression ending in a lone backslash reaches it, and none compiles); `keywords.length
//   > 0` made true or `>=` (some() over no keywords is false all the same).
// - secret-rules.ts, unbounded: the escape remover's "" made "Stryker was here!" and the class
//   remover's "x" made "": neither text holds `+`, `*`, a brace, a digit or a backslash, so the
//   test that follows sees the same quantifiers either way.
// - secret-rules.ts, groupsOf: `open`'s initial `[]` made `["Stryker was here"]` (only a `)`
//   without its `(` would pop it, and no such expression compiles); the main loop's `i <
//   source.length` made `<=` (the character past the end is undefined: no branch takes it); the
//   class loop's `i < source.length` made true or `<=` (only a class left open reaches the end,
//   and none compiles); the `?? ""` after a group's `)` made "Stryker was here!" (no quantifier
//   character in it).
// - secret-rules.ts, shannonEntropy: `n === 0` made false (no loop runs; 0 all the same); `c < 128`
//   made false (every character counted in the map: the same counts, summed in first-seen order
//   instead of by code; the sums differ at most in the last bits of a double).
// - redaction.ts, the constructor: `this.generic`'s `[]` made `["Stryker was here"]` (find empties
//   it first); a keyword's new target list `[]` made `["Stryker was here"]` (a string target is no
//   rule and no literal, so it is tried as a key block, which is found only at a key header, found
//   already through "-----begin"; its keyword loses its filter: more hits, the same spans);
//   `{ kind: "key" }` made `{}` or "key" made "" (the same branch); `!nonAsciiLiterals.includes`
//   made true (the automaton drops keywords outside ASCII; indexOf still finds them).
// - redaction.ts, find: `spans`' `[]` made `["Stryker was here"]` (the string has no `end`: the final
//   filter drops it). The scan counter's wrap (`++this.scans === 0x7fffffff` made true or `!==`, `++`
//   made `--`, its block emptied): marks reset more often, or never (the counter stays far below
//   2^53, so each find's number is still its own), only change how often a prefixed rule is tried
//   again at a place it was tried, which finds the same match. The fast paths before a
//   keyword-start rule's sticky expression (`target.rule.keywordStart` made false or its block
//   emptied, the token check made false, `boundaryBefore && start > 0 && ...` made false, true or
//   `||`, `start > 0` made true, `>=` or `<=`): the expression decides the same (it begins with the
//   keyword, then a token character where tokenAfterKeyword, and with `\b` where boundaryBefore;
//   charCodeAt(-1) is NaN, no word character).
// - redaction.ts, find's windows: the merge of a rule's windows (`list.length > 0 && ws <= last`
//   made false, true, `||`, `>=`, `<=`, `ws <= last` made true, `<`, `>`, `list.length - 1` made
//   `+ 1` twice): windows merged more or less often cover the same text around each keyword; only
//   the number and size of the expression's runs differ.
// - redaction.ts, runRule: the widening's `we < text.length` made `<=`: text[text.length] is
//   undefined, which `/\s/` does not match ("undefined"), so the end goes past the text by at most
//   256, and slice stops at the text's end.
// - redaction.ts, runPrefixed: `at > 0` made true or `>=` (charCodeAt(-1) is NaN, not wordish), and
//   the try marks (`lastTryScan[index] === scans && lastTry[index] >= at` made false, `>=` made
//   `>`): the same sticky expression tried again from the same place finds the same match.
// - redaction.ts, runRule: `m[0].length === 0` made false and its block (not covered): no window
//   rule's expression matches the empty string.
// - redaction.ts, keep: in the secret's choice `group > 0 && m[group] !== undefined` made `||`,
//   `group > 0` made true or `>=` (group is -1, 0 or a group's number: for -1 and 0 each still
//   takes m[0]); before `rule.indices` the same three, the whole made true, and `... ||
//   rule.indices` (for group 0 or -1, `indices[group]` is the whole match's range or undefined,
//   which keeps the match's bounds). The secret's choice made true: group is -1 only for a match
//   in which no group holds a character, and every vendored rule with groups, no secret group and
//   no fragment first has, in every alternative, a group of at least one character (checked by
//   reading the 158 expressions: most are one required `(...{n})`; curl-auth-header's
//   alternatives each hold a `{8,}` group), so m[-1] is never taken.
// - redaction.ts, keywordFilter (a prefilter: 0 reports every hit, and find checks each hit
//   again): its body or loop body emptied, `target.kind !== "rule"` made true or "rule" made "",
//   `target.rule.keywordPrefix` made false, `|=` made `&=` twice, the token condition made false:
//   each gives 0 or a smaller filter, which only reports more hits.
// - redaction.ts, insideFound (a shortcut: a generic match inside a secret found already would be
//   merged into it under the specific kind): `spans.length === 0` made false, `group > 0 &&
//   m[group] !== undefined` made true, `||`, `group > 0` made true or `>=`, `m[group] !== undefined`
//   made true (the generic rule's one group is not optional, so group is 1), and the end's
//   `+ m[0].lastIndexOf(secret)` made `-`: a generic match kept when it need not be is merged into
//   the secret that holds it.
// - redaction.ts, merge: `spans.length <= 1` made `< 1` (one span copied), `b.end - a.end` made `+`
//   (spans with the same start merge to the same end and kind in either order), `s.end > last.end`
//   made `>=`, `s.kind !== GENERIC_KIND` made true (a generic span renamed generic).
// - redaction.ts, looksSecretName: the split's `[^A-Z0-9]+` made `[^A-Z0-9]` (the empty parts
//   between two separators are no secret word).
// - secret-spans.ts, applySpans: `spans.length === 0` made false and `from === 0 && to ===
//   text.length` made false: the loop, and slice(0, length), give the same text.
// - secret-stream.ts: the initial `controls` (`{}`, `+1` twice: find sets both before they are
//   read) and `escapes = true` (the first scan of raw output then looks for an escape first and,
//   finding none, scans as it is); push's `chunk.length <= piece` made false or `<` (one piece is
//   the chunk); flushIdle's `this.pending === ""` made false or "" made "Stryker was here!"
//   (emit returns "" for nothing pending, and a key body being swallowed stays so while idle;
//   end() has no such check since branch h20g: it always emits, which also ends the swallowing);
//   emit's `i > base` made `>=` (the cut is raised to base after), `span.start < cut` made `<=`
//   for an open block and `span.end > cut` made `>=` (the cut is set to the value it has),
//   `this.controls.first !== -1` made true (first is -1 only when
//   last is, and last >= base fails), `cut - base >= CONTEXT` made false or `>` (both branches keep
//   the last 512 characters), `!this.swallowing` made true (emit returns "" at once while
//   swallowing).
// - secret-stream.ts, find with ansi: `controls.first === -1` made false (indexOf from -1 searches
//   from 0 and finds no escape where there is no control character), `buf.indexOf("\x1b")` made
//   indexOf("") (0: the mapping of text without escapes is the identity, and the controls are
//   noted the same but for a first at 0 with no last at or after base), the `escapes` flag's
//   update (`firstEscape !== -1` made true, false, `===`, `+1`: it only chooses which search comes
//   first), `map.push(buf.length)` removed and the visible base's loop (`visibleBase < map.length
//   - 1 && map[v] < base` made false, its first half made true, `<=`, `>=`, `+ 1`, `map[v] < base`
//   made `<=`, `++` made `--`): a lower or higher visible base only changes which spans that end
//   at or before the raw base find reports, and applySpans skips every such span; no span starts
//   before base and ends one character after it (the hold keeps every match there whole), and
//   `s.end > 0` made true or `>=` (no span is empty).
// - keyword-automaton.ts (branch h20d), scan's JavaScript loop: `state === 0` made false (the root,
//   reached by a control character, ends no keyword: its output list is empty and its filter 0).
//   contains: `i < text.length` made `<=` (charCodeAt past the end is NaN, class 0, whose
//   transitions lead to the root, no hit).
// - keyword-automaton.ts, scanWasm: `-pairs[h + 1] - 1` made `+ 1`: the state is recovered by an
//   integer division by the class count, at least 3 with any keyword (class 0, one letter, the
//   control class), so +2 is lost in the rounding. (`count < max - 64 * 2` made `<=`, listed here
//   before, is killed since branch h20e: keyword-automaton.test.ts stops a call at exactly max - 128.)
// - keyword-filters.ts, digitValueAt: `!isValueChar(...)` for the value's first character made
//   false: the value loop tests the same character first and returns false.
// - keyword-filters.ts, assignmentAt: `i < length` made true or `<=` in the operator and
//   before-value loops, and the token run's bounds (the whole made true, `run < 5` made true or
//   `<=`, `i + run < length` made true, `<=` or `i - run < length`, `&&` made `||`): past the end
//   charCodeAt is NaN, masked to 0, which is no operator, blank or token character; counting
//   tokens past the fifth does not change `run >= 5`.
// - keyword-grams.ts, commonness: `c + 32` made `c - 32` (not covered): every pair and third it is
//   given is folded to lower case already (gramTables lowers the keywords).
// - keyword-automaton.ts (branch h20e), the constructor. `representative`'s `[-1]` made `[+1]`:
//   representative[0] (class 0, no character) is never read (the root's loop begins at class 1,
//   the state loop skips class 0). The check that leaves out keywords past ASCII (`some(...)` made
//   false or `every`, `[...lower]` made `[]`, the arrow made `() => undefined`, `>= ALPHABET` made
//   false or `>`): such a keyword, kept, gets goto states past its first character over 127 but no
//   class for it (classOf has 128 entries: `classOf[c] === 0` is false for undefined), and the
//   breadth-first walk follows the classes' representatives only, so those states are unreachable
//   and the keyword is never reported; its ASCII prefix adds states and classes without outputs
//   (the same hits; gramTables leaves such keywords out on its own). The control-class loops'
//   `c < ALPHABET` made `<=` (twice): isControlByte(128) is false. `k < classes` made `<=` in the
//   root's loop and in the state loop: class `classes` has no representative (get(undefined) finds
//   nothing), so the extra cell written is class 0 of the next row, which holds 0 in every row
//   (class 0 leads to the root) and is written 0 again, or lies past the table (ignored).
//   `k === 0 || k === controlClass` made false or `&&`, either half made false: representative[0]
//   is -1 and the control class has no representative (undefined), keys no goto map holds, so
//   get() finds nothing all the same. The final loop's `i < delta.length` made `<=`: the write past
//   the end is ignored. `ends[next] !== undefined` made true: next is a state below `states`, and
//   ends holds a list for every state. `flat`'s `[]` made `["Stryker was here"]`: outputs[0]
//   becomes 0 and every state's slice starts one later; outStart and outEnd are taken from flat's
//   length, so each slice holds the same ids.
// - keyword-grams.ts (branch h20e): what gives the same tables for any keywords.
//   `bitOf[lower]! >= 0` made true: a byte without a class then gets `1 << -1`, that is `1 << 31`,
//   whose low 8 bits are 0: the same THIRDS byte. gramTables' `filters = []` made `["Stryker was
//   here"]`: filters are only compared with `!== FILTER_TOKEN_AFTER`, as undefined is. addTrigram's
//   `keyword === undefined` made false: the gram gets `keyword: undefined`, which restartOffsets
//   skips as it skips a missing one. The one-character keyword's `b < 256` made `<=`: the gram for
//   256 has a pair index past the 65,536-entry tables (writes ignored) and third -1 (no class).
//   The token loop's `t < 128` made `<=`: isTokenChar(128) is false; the control loop's `c < 256`
//   made `<=`: isControlByte(256) is false, and its `b < 256` made `<=`: an index past the tables.
//   restartOffsets: `g.bit === GRAM_TRIGRAM && g.keyword !== undefined` made true or `||`, either
//   half made true (only trigram grams carry a keyword; the others' key, undefined, is never looked
//   up: keywords are strings); `limit === undefined` made false (`d <= undefined` is false: the loop
//   does not run); `d + 3 <= lower.length` made true or `d - 3` (d <= limit, the gram's offset, at
//   most lower.length - 3 by gramTables' offset loop). commonness's fold of upper case (`c >= 65 &&
//   c <= 90` made false, `c >= 65` made `> 65`, `c <= 90` made `< 90`; see `c - 32` above):
//   commonness is given lower case only (pairs of lowered keywords, thirds folded by addTrigram).
// - keyword-grams.ts (branch h20e): speed only, where the loop's first test stops, never whether a
//   keyword is found. Whatever class thirdBits gives a third, gramTables sets that class's bit in
//   the bucket of every pair the third follows in a gram (`thirds[third] & ~ANY_THIRD`), and THIRDS
//   gives the third's byte, in both cases, that same bit: every gram's own (pair, third) passes the
//   first test under any class choice, so the contract (keyword-grams.test.ts checks it for any
//   ASCII keyword) holds; the choice decides only which other trigrams stop the loop. Measured with
//   keyword-grams.test.ts's quality test (4-position groups of 200,000 characters of ordinary output
//   stopped by the first test with no gram there; the source 5.02 %, the test's bound 6.5 %):
//   pairWeight's factors (`* (common === -1 ? 1 : 3)` made `/` 5.41 %, the commonness product made
//   `/` 2.74 %, `common === -1` made `!==` 5.41 %); the thirds' order (the sort removed, its
//   comparator made `() => undefined`, true, false or `+`: 4.23 %; `||` made `&&` 5.13 %, the tie's
//   `x - y` made `+` 4.71 %); the class costs (`!own.has(pair)` made true 3.21 %, `* commonness(third)`
//   made `/` 6.23 %, `!cls.pairs.get(pair)?.has(other)` made true 3.09 % or false 6.23 %, `cost <
//   bestCost` made `<=` 5.02 %, `cls.thirds.push(third)` removed 6.23 %, `!followers` made true
//   4.43 %); bitOf's fill -1 made +1 (bytes that are no gram's third get class 1's bit: only more
//   passes, 5.18 %); `third < 0` made false in thirdBits (a one-character keyword's grams, whose
//   buckets get ANY_THIRD anyway, join the choice as a third -1 that bitOf ignores; the rule set has
//   none: 5.02 %); grams' `[]` made `["Stryker was here"]` (a gram with undefined pair and third
//   joins the choice; its table writes are 0: 5.02 %); commonness's fold widened to characters
//   below 65 (`c >= 65` made true or `< 65`: other weights for digits, blanks and punctuation:
//   5.02 %). addTrigram's fold of the third (made false 4.66 %, `c >= 65` made `>` 3.85 %, `c <= 90`
//   made `<` 5.02 %, `c + 32` made `- 32` 5.04 %): only a two-character keyword's token loop gives
//   an upper-case third, and it gives the lower-case letter too, whose gram sets the bit THIRDS
//   gives both cases; the unfolded (or shifted) third only adds a class bit to that pair's bucket.
//   The gram's choice among equal scores (`score > bestScore` made `>=`: the later offset, 4.37 %):
//   still a trigram of the keyword within GRAM_OFFSET_LIMIT, and restartOffsets takes its offset as
//   the limit. The bucket's `third < 0` made `<=` (a gram whose third is NUL gets ANY_THIRD, which
//   every byte's THIRDS has: only more passes; NUL in a keyword also keeps the automaton off the
//   WebAssembly loop). Several of these pass fewer groups than the source on this text; none passes
//   more than 6.23 %, a quarter over the source, too close to pin with a bound that a rule set
//   update would not move (the bound of 6.5 % kills rarity's and commonness's inversions, 7.1 % to
//   10.9 %).
//
// app/main/permissions, the permissions-app target (branch h20h; judged by its unit tests)
// - call-summary.ts, editDiff: `typeof e?.newText` made `e.newText`: the `&&` reads it only after
//   `typeof e?.oldText === "string"`, which is false for a null or undefined edit.
// - output-redaction.ts, redactToolOutput: `block.type !== "text"` made false: a tool's content is
//   text and image blocks (AgentToolResult), and only a text block has a `text` field, so the
//   `typeof block.text !== "string"` half leaves every other block alone all the same. The tool's own
//   counts: `typeof atSource === "object"` made true: a truthy primitive there (a string, number or
//   boolean) has no entries but a string's characters, which are no numbers, so nothing is merged.
// - call-judge.ts, prejudge: `if (!tool) return undefined` made false: `tool.prepareArguments` then
//   throws a TypeError inside the try, whose catch returns undefined all the same.
// - questions.ts, register: the abort listener's `{ once: true }` made `{}` or `{ once: false }`: an
//   AbortSignal dispatches "abort" at most once, and settle removes the listener on every end (the
//   abort's own end included).
// - permissions-service.ts, respond: `q.ruleTool === MCP_RULE_TOOL ? ... : undefined` made true:
//   only an MCP call's summary carries `mcp` (mcpSummary; summarizeCall never sets it), and mcpServer
//   is read only for a question whose ruleTool is mcp. respondBatch: `patterns: []` made `["Stryker
//   was here"]`: a kept answer's patterns are never read (rules are saved by respond alone; before()
//   asks only whether the answer has patterns).
// - permissions-service.ts, before: `decision.rule?.id` made `.id` (twice): a deny, and an allow
//   `by: "rule"`, always name their rule (policy.ts decide).
// - permissions-service.ts, answerFor: `if (kept) this.questions.forget(...)` made true: without a
//   kept answer or open question for the call there is nothing to forget (takeKept found neither).
//   `own ? own.answer : { decision: "aborted" }`: its alternative is not covered (`{}` and "" there):
//   `asking` always holds the call's own question (questionSpec never gives undefined), and ask
//   returns one question per spec, so own is always set.
// - output-redaction.ts, checkWhole (the lead, after the branch): the RangeError's message made "":
//   the catch never reads it. `if (!Array.isArray(value)) scan(k)` made true: an array's keys are
//   its indexes, digits, in which no secret rule finds anything (it only costs a scan). The secret
//   branch's `changes.leftOut++` made `--`: the count is read only when nothing was found, and this
//   branch adds what it found.

/**
 * The permissions service and the six files only it uses answer the app (dialogs, questions,
 * the rules screen). They are their own target, judged by their own unit tests (which build the
 * service with in-memory stand-ins), so that neither target reruns the other's tests; the
 * whole-app tests that also reach them judge neither (vitest.mutation.config.ts says which tests
 * each target runs or leaves out).
 */
const PERMISSIONS_APP = ["permissions-service", "call-judge", "output-redaction", "questions", "call-summary", "mcp-rules", "rule-migration"].map(
  (file) => `app/main/permissions/${file}.ts`,
);

/**
 * Which folder is mutated, and which tests judge it. The permissions target also mutates the walk
 * to a path's real path (app/main/tools/real-path.ts): it was the permission judge's until the
 * tools shared it, no target mutates the tools, and the judge's tests (path-facts, path-shortcuts,
 * real-path in test/permissions) are what test it.
 */
const TARGETS = {
  loop: { mutate: ["app/main/loop/**/*.ts", "!app/main/loop/test/**"], dir: "app/main/loop" },
  permissions: {
    mutate: ["app/main/permissions/**/*.ts", ...PERMISSIONS_APP.map((file) => `!${file}`), "app/main/tools/real-path.ts"],
    dir: "test/permissions",
  },
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
  // bench/ but its support folder: test/permissions/redaction.test.ts checks against its reference scanner.
  ignorePatterns: ["out", "dist", "reports", "screenshots", "test-results", ".stryker-tmp", "test/renderer", "bench/*", "!bench/support"],
  cleanTempDir: "always",
};

export default config;
