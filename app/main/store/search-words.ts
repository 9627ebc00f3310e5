// The search's word list (table search_words, see V8_SEARCH_WORDS in migrations.ts): every distinct
// indexed word of MIN_WORD to MAX_WORD characters with the number of messages it was indexed in.
// It turns a word being typed into the words it completes to, so search.ts asks FTS5 for those
// exact words (an OR) instead of a prefix query: FTS5 answers a prefix by merging the whole index
// of every word with that prefix before returning anything (54 ms for "functi" over 2 M messages),
// and an OR of exact words newest-first stops at the page like one word does.
// Words are split and folded in JS the way the index's tokenizer (unicode61, remove_diacritics 2)
// does for ordinary text: runs of letters, digits and private-use characters, diacritics removed,
// lower case. Where the two differ for an exotic character, the completion is still handed to
// FTS5 as a quoted phrase, so it never matches what the word itself would not. Counts only rank
// completions: deleting or editing a message does not lower them (a word left with no message
// finds nothing). Pure SQL on the caller's connection; throws what better-sqlite3 throws.
import type { Database } from "better-sqlite3";
import { statement } from "./sql.ts";

/** Shorter words are never completions (a typed prefix has 3 characters or more, its completions more). */
export const MIN_WORD = 4;
/** Longer words (hashes, encoded data) are not listed: a prefix never completes to them. */
export const MAX_WORD = 40;
/**
 * Distinct words listed per message at most: a 1 MB paste of distinct words (a hex dump) otherwise
 * costs about 0.2 s to count and 130,000 upserts, in one indexing batch on the main thread. Its
 * words past this still match when typed whole (the index has them all).
 */
export const MAX_WORDS_PER_MESSAGE = 4096;
/** How many completions a typed word stands for at most (the most frequent). */
export const MAX_COMPLETIONS = 24;

const WORD = /[\p{L}\p{N}\p{Co}]+/gu;
const MARKS = /\p{M}/gu;

/**
 * A word as the index stores it: diacritics removed, lower case. NFC after removing the marks puts
 * back together what NFD split into letters, not marks: Hangul syllables, which the index keeps
 * whole (without it, "대한민국" was listed as 11 jamo and typing "대한민" found nothing).
 */
export function foldWord(word: string): string {
  return /[\u0080-\u{10FFFF}]/u.test(word) ? word.normalize("NFD").replace(MARKS, "").normalize("NFC").toLowerCase() : word.toLowerCase();
}

/**
 * Whether a folded word is listed: MIN_WORD to MAX_WORD characters, counted in code points as
 * SQLite's length() counts them (an astral letter is two UTF-16 units). The indexer and the fill
 * after an upgrade (search-words-fill.ts) list the same words by it.
 */
export function isListable(word: string): boolean {
  const units = word.length;
  // A code point is one or two units: most words are decided without counting.
  if (units < MIN_WORD || units > MAX_WORD * 2) return false;
  if (units >= MIN_WORD * 2 && units <= MAX_WORD) return true;
  let chars = 0;
  for (const _ of word) chars++;
  return chars >= MIN_WORD && chars <= MAX_WORD;
}

/**
 * Characters of a message read for its words at most: the index's batch runs on the main thread,
 * and a 20 MB answer of a few words repeated took about a second to read whole here (the distinct
 * words' bound never ends it early). Its later words still match when typed whole.
 */
export const MAX_CHARS_COUNTED = 1_000_000;

/** Adds one to `counts` for every distinct listable word of `text` (its first MAX_WORDS_PER_MESSAGE, in its first MAX_CHARS_COUNTED characters). */
export function countWords(text: string, counts: Map<string, number>): void {
  const seen = new Set<string>();
  const cut = text.length > MAX_CHARS_COUNTED;
  const read = cut ? text.slice(0, MAX_CHARS_COUNTED) : text;
  for (const match of read.matchAll(WORD)) {
    const raw = match[0];
    // A word the cut ends may go on past it: not listed.
    if (cut && match.index + raw.length === read.length) break;
    if (raw.length < MIN_WORD || raw.length > MAX_WORD * 2) continue;
    const word = foldWord(raw);
    if (!isListable(word) || seen.has(word)) continue;
    seen.add(word);
    counts.set(word, (counts.get(word) ?? 0) + 1);
    if (seen.size >= MAX_WORDS_PER_MESSAGE) return;
  }
}

/** Adds the counts to the word list (call inside the indexing transaction). */
export function recordWords(db: Database, counts: Map<string, number>): void {
  const upsert = statement(db, "INSERT INTO search_words(word, docs) VALUES (?, ?) ON CONFLICT(word) DO UPDATE SET docs = docs + excluded.docs");
  for (const [word, docs] of counts) upsert.run(word, docs);
}

/** The listed words longer than `prefix` that start with it, the most frequent first (at most MAX_COMPLETIONS). */
export function completionsOf(db: Database, prefix: string): string[] {
  const folded = foldWord(prefix);
  // Every UTF-8 string that starts with `folded` sorts between it and it followed by U+10FFFF.
  return statement(db, "SELECT word FROM search_words WHERE word > ? AND word < ? ORDER BY docs DESC, word LIMIT ?")
    .pluck()
    .all(folded, `${folded}\u{10FFFF}`, MAX_COMPLETIONS) as string[];
}
