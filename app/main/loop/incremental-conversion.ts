// Incremental conversion of a transcript: what turns the transcript into a request each turn
// converts only what came since the last turn, reusing the converted prefix. Must not throw
// (beyond what `convert` throws); its result equals `convert` of the whole list, joined.
//
// The rule it relies on is the transcript's: append-only. Messages are added at the end; a message
// is never replaced or changed once a later one follows it (the loop replaces only the message it
// is streaming, the last one). Under that rule, checking two references per call is enough to
// reuse a prefix: the list's first message (which transcript this is: the cache is keyed on it) and
// the last message of the converted prefix (still there, at the same place). A list that fails the
// check (shorter, forked, truncated, or another transcript) is converted again from its start.
//
// A converted prefix ends at a split point: a message before which the conversion may be cut, so
// that converting up to it, converting from it on, and joining the two gives the same list as one
// conversion (for the providers: before a user message or an answer that did not fail, where
// nothing of the messages before it is pending). The messages after the last split point, a turn's
// worth, are converted again on every call. The converted prefix is never handed out: each call
// returns a new array, and its items are never changed after they are made.

export interface IncrementalConversionSpec<S extends object, T, C> {
  /** Converts a run of consecutive messages (none of them skipped) to the output list. Pure. */
  convert: (messages: readonly S[], context: C) => T[];
  /** Whether the conversion may be cut just before `message` (see the header). */
  splitsBefore: (message: S) => boolean;
  /**
   * When the first item of a later run must merge into the last item of the list so far, the
   * merged item (a new object: neither argument may be changed); undefined to append it.
   */
  join?: (last: T, next: T) => T | undefined;
}

interface Converted<S, T> {
  key: string;
  /** Messages converted into `items`: the list's first `count`. */
  count: number;
  /** The last of them (identity), checked on every call. */
  last: S | undefined;
  items: T[];
}

/**
 * A converter that keeps, per transcript, the conversion of its prefix up to the last split point.
 * `key` names whatever else the conversion depends on (the model, say): a different key converts
 * again from the start. `head` items come first in the result, as given (never converted or
 * joined); `from` skips the transcript's first messages (what a compaction summarized): the
 * messages from it on are the list converted, and its message at `from` is what the cache is
 * keyed on.
 */
export function incrementalConversion<S extends object, T, C>(
  spec: IncrementalConversionSpec<S, T, C>,
): (messages: readonly S[], key: string, context: C, head?: readonly T[], from?: number) => T[] {
  const byFirstMessage = new WeakMap<S, Converted<S, T>>();
  const append = (list: T[], run: readonly T[], joinFirst: boolean): void => {
    for (let i = 0; i < run.length; i++) {
      const item = run[i]!;
      const merged = i === 0 && joinFirst && list.length > 0 && spec.join ? spec.join(list[list.length - 1]!, item) : undefined;
      if (merged === undefined) list.push(item);
      else list[list.length - 1] = merged;
    }
  };
  return (messages, key, context, head = [], from = 0) => {
    const start = Math.max(0, Math.trunc(from));
    const n = messages.length - start;
    if (n <= 0) return head.slice();
    const first = messages[start]!;
    let cached = byFirstMessage.get(first);
    if (!cached || cached.key !== key || cached.count > n || (cached.count > 0 && messages[start + cached.count - 1] !== cached.last)) {
      cached = { key, count: 0, last: undefined, items: [] };
      byFirstMessage.set(first, cached);
    }
    let split = n - 1;
    while (split > cached.count && !spec.splitsBefore(messages[start + split]!)) split--;
    if (split > cached.count) {
      append(cached.items, spec.convert(messages.slice(start + cached.count, start + split), context), true);
      cached.count = split;
      cached.last = messages[start + split - 1];
    }
    const result = head.length > 0 ? head.concat(cached.items) : cached.items.slice();
    const tail = start === 0 && cached.count === 0 ? messages : messages.slice(start + cached.count);
    append(result, spec.convert(tail, context), cached.items.length > 0);
    return result;
  };
}
