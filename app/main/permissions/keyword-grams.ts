// The skip tables of the keyword loop (keyword-scan-wasm.ts): for each keyword one short piece
// ("gram") that every occurrence of it contains within its first GRAM_OFFSET_LIMIT + 3 characters,
// so that most of a text can be passed over with two independent loads per byte instead of a
// chain of automaton steps. A two-character keyword is its own gram; a longer one contributes
// its rarest three characters (by a fixed estimate of how common each character is in text and
// code) at an offset of at most GRAM_OFFSET_LIMIT. Contract: wherever a keyword occurs (ASCII,
// any case) starting at s (a keyword reported only before a token character: followed by one), `PAIRS[byte(g) | byte(g + 1) << 8]` has GRAM_DIRECT, or has GRAM_TRIGRAM
// and the trigram bit of the three bytes at g is set, for some g in [s, s + GRAM_OFFSET_LIMIT].
// Other bytes may pass too (the automaton then finds nothing there). Control bytes (isControlByte)
// are marked GRAM_CONTROL. The loop's first test (BUCKETS and THIRDS) looks at a pair and a class
// of the byte after it; the classes are given per rule set (thirdBits) so that the characters
// common in text share theirs with few grams ("session" and "the" pass it). Where a gram passes,
// OFFSETS says how far back the automaton restarts (restartOffsets). Pure; never throws.
import { FILTER_TOKEN_AFTER, isControlByte, isTokenChar } from "./keyword-filters.ts";

/** How far into a keyword its gram may begin: the loop restarts the automaton this far back. */
export const GRAM_OFFSET_LIMIT = 3;
/** PAIRS bits: a control byte here; a two-character keyword here; check the trigram bitmap. */
export const GRAM_CONTROL = 0x80;
export const GRAM_DIRECT = 1;
export const GRAM_TRIGRAM = 2;
/** Bits of the trigram bitmap (a hash of the three bytes, letters folded to lower case). */
export const TRIGRAM_HASH_BITS = 15;
export const TRIGRAM_HASH_MULTIPLIER = 0x9e3779b1 | 0;

/** Characters from most to least common in text and code; any other character counts as rare. */
const COMMON_FIRST = " etaoinsrhldcumfpgwybvkxjqz0123456789";

/** The hash of three bytes b0 | b1 << 8 | b2 << 16, folded as the loop folds them (| 0x20 each). */
export function trigramHash(threeBytes: number): number {
  return Math.imul((threeBytes | 0x202020) & 0xffffff, TRIGRAM_HASH_MULTIPLIER) >>> (32 - TRIGRAM_HASH_BITS);
}

/** The most common letter pairs of English text, most common first. */
const COMMON_PAIRS = "th he in er an re on at en nd ti es or te of ed is it al ar st to nt ng se ha as ou io le ve co me de hi ri ro ic ne ea ra ce li ch ll be ma si om ur".split(
  " ",
);

/**
 * Trigrams common in English, in code and in build and test output (keywords such as, say,
 * "launchdarkly" or "linkedin" contain them: a gram there would stop the loop at every
 * "function" or "line"). A gram is one of these only when its keyword offers nothing else.
 */
const COMMON_TRIGRAMS = new Set(
  (
    "the and ing ion tio ent ati for her ter hat tha ere ate his con res ver all ons nce men ith ted ers pro thi wit are ess not ive was ect rea com eve per int est sta cti ica ist ear ain one our iti rat " +
    "unc fun lin ine ame nam son jso git hub str ort por xpo imp ret urn tur err rro ror ses ssi sio ile fil ule odu mod dul ist tes est pac ack age ild bui uil ect ock oca loc cal ppo upp sup ead rea " +
    "ype typ ser use req que ues val alu lue def efa fau ult art sta tar arn war rni ing ini nit abl ble log ogg ach ech ath pat sou our rce dat ata con onf nfi fig sto tor ore row own"
  ).split(" "),
);

function rarity(c: string): number {
  const at = COMMON_FIRST.indexOf(c);
  return at === -1 ? COMMON_FIRST.length + 4 : at;
}

/**
 * How rarely a trigram should occur in text (higher: rarer). Its first two characters weigh
 * most: they are what the loop tests at every byte (PAIRS); the bitmap checks the third.
 */
function gramScore(gram: string): number {
  const pair = gram.slice(0, 2);
  const common = COMMON_PAIRS.indexOf(pair);
  return 2 * (rarity(gram[0]!) + rarity(gram[1]!)) + rarity(gram[2]!) - (common === -1 ? 0 : 60 - common) - (COMMON_TRIGRAMS.has(gram) ? 200 : 0);
}

/** THIRDS bit of every byte: a two-character keyword's pair, or a control byte's, has it in BUCKETS. */
const ANY_THIRD = 0x80;

/** How common a character is in text (folded to lower case), for weighing collisions: 1 for a blank, less for rarer ones. */
function commonness(c: number): number {
  const lower = c >= 65 && c <= 90 ? c + 32 : c;
  return 1 / (1 + rarity(String.fromCharCode(lower)));
}

/**
 * Each third byte of a gram (letters folded) gets one of the seven bits 0 to 6; every other
 * byte none (only ANY_THIRD). A text trigram passes the first test when its pair begins a gram
 * whose third shares a bit with its own third: the bits are given so that the common characters
 * share theirs with the fewest pairs they do not follow in a gram (a greedy choice, commonest
 * character first, weighing each pair and character by how common it is).
 */
function thirdBits(grams: readonly { pair: number; third: number }[]): Uint8Array {
  const pairsOf = new Map<number, Set<number>>(); // third -> pairs (folded) it follows in a gram
  for (const { pair, third } of grams) {
    if (third < 0) continue;
    let set = pairsOf.get(third);
    if (!set) pairsOf.set(third, (set = new Set()));
    set.add(pair);
  }
  const pairWeight = (pair: number) => {
    const common = COMMON_PAIRS.indexOf(String.fromCharCode(pair & 0xff, pair >> 8));
    return commonness(pair & 0xff) * commonness(pair >> 8) * (common === -1 ? 1 : 3);
  };
  const classes = Array.from({ length: 7 }, () => ({ thirds: [] as number[], pairs: new Map<number, Set<number>>() }));
  const bitOf = new Int8Array(256).fill(-1);
  const thirds = [...pairsOf.keys()].sort((x, y) => commonness(y) - commonness(x) || x - y);
  for (const third of thirds) {
    const own = pairsOf.get(third)!;
    let best = 0;
    let bestCost = Infinity;
    for (const [k, cls] of classes.entries()) {
      // The false passes added: this third after the class's pairs it does not follow, and the
      // class's thirds after this third's pairs they do not follow.
      let cost = 0;
      for (const [pair, followers] of cls.pairs) if (!own.has(pair)) cost += pairWeight(pair) * commonness(third) * followers.size;
      for (const pair of own) for (const other of cls.thirds) if (!cls.pairs.get(pair)?.has(other)) cost += pairWeight(pair) * commonness(other);
      if (cost < bestCost) [best, bestCost] = [k, cost];
    }
    const cls = classes[best]!;
    cls.thirds.push(third);
    for (const pair of own) {
      let followers = cls.pairs.get(pair);
      if (!followers) cls.pairs.set(pair, (followers = new Set()));
      followers.add(third);
    }
    bitOf[third] = best;
  }
  return Uint8Array.from({ length: 256 }, (_, c) => {
    const lower = c >= 65 && c <= 90 ? c + 32 : c;
    return ANY_THIRD | (bitOf[lower]! >= 0 ? 1 << bitOf[lower]! : 0);
  });
}

function caseVariants(c: number): number[] {
  return c >= 97 && c <= 122 ? [c, c - 32] : [c];
}

export interface GramTables {
  /** 65,536 bytes, indexed by two bytes of text (the first in the low byte). */
  pairs: Uint8Array;
  /**
   * The loop's first test, four positions at a time: 65,536 bytes indexed as `pairs`, each with
   * the bit `thirds[c]` set for the third byte c of every gram starting with that pair, all bits
   * for a two-character keyword and a control byte. Zero where `pairs` could find nothing with
   * that third byte.
   */
  buckets: Uint8Array;
  /** 256 bytes: each byte's bucket bits: ANY_THIRD, and the bit of its class when it is a gram's third (both cases of a letter alike; see thirdBits). */
  thirds: Uint8Array;
  /** 2 ** TRIGRAM_HASH_BITS bits. */
  trigrams: Uint8Array;
  /**
   * 2 ** TRIGRAM_HASH_BITS bytes, per trigram hash: how far before a trigram with that hash the
   * automaton must restart (see restartOffsets), at most GRAM_OFFSET_LIMIT.
   */
  offsets: Uint8Array;
}

/**
 * The tables for these keywords (lower case; keywords with characters past 127 are left out, as
 * the automaton leaves them). `filters`: per keyword, its FILTER_* bits; a two-character keyword
 * whose hits are reported only before a token character (FILTER_TOKEN_AFTER alone: "ey" of JSON
 * web tokens) has the trigrams of itself and each token character for its gram, so the loop does
 * not stop at every "key " or "they". Such a keyword is then found only where a token character
 * follows it, or where the text ends after it (the loop reads a token character past the end).
 */
export function gramTables(keywords: readonly string[], filters: readonly number[] = []): GramTables {
  const pairs = new Uint8Array(65536);
  const buckets = new Uint8Array(65536);
  const trigrams = new Uint8Array((1 << TRIGRAM_HASH_BITS) >> 3);
  /** Per gram: its first two bytes (lower case) and its third (lower case), or -1 for any; its keyword (lower case) and offset there. */
  const grams: { pair: number; third: number; bit: number; offset: number; keyword?: string }[] = [];
  const addTrigram = (a: number, b: number, c: number, keyword?: string, offset = 0) => {
    grams.push({ pair: a | (b << 8), third: c >= 65 && c <= 90 ? c + 32 : c, bit: GRAM_TRIGRAM, offset, ...(keyword === undefined ? {} : { keyword }) });
    const h = trigramHash(a | (b << 8) | (c << 16));
    trigrams[h >> 3]! |= 1 << (h & 7);
  };
  for (const [id, keyword] of keywords.entries()) {
    const lower = keyword.toLowerCase();
    if (lower.length === 0 || [...lower].some((c) => c.charCodeAt(0) > 127)) continue;
    if (lower.length === 1) {
      // Not produced by the rule set; marked for every next byte so the contract still holds.
      for (let b = 0; b < 256; b++) grams.push({ pair: lower.charCodeAt(0) | (b << 8), third: -1, bit: GRAM_DIRECT, offset: 0 });
      continue;
    }
    if (lower.length === 2) {
      const [a, b] = [lower.charCodeAt(0), lower.charCodeAt(1)];
      if (filters[id] !== FILTER_TOKEN_AFTER) {
        grams.push({ pair: a | (b << 8), third: -1, bit: GRAM_DIRECT, offset: 0 });
        continue;
      }
      for (let t = 0; t < 128; t++) if (isTokenChar(t)) addTrigram(a, b, t);
      continue;
    }
    let best = 0;
    let bestScore = -Infinity;
    for (let o = 0; o <= Math.min(GRAM_OFFSET_LIMIT, lower.length - 3); o++) {
      const score = gramScore(lower.slice(o, o + 3));
      if (score > bestScore) [best, bestScore] = [o, score];
    }
    addTrigram(lower.charCodeAt(best), lower.charCodeAt(best + 1), lower.charCodeAt(best + 2), lower, best);
  }
  const thirds = thirdBits(grams);
  for (const { pair, third, bit } of grams) {
    for (const x of caseVariants(pair & 0xff)) {
      for (const y of caseVariants(pair >> 8)) {
        pairs[x | (y << 8)]! |= bit;
        buckets[x | (y << 8)]! |= third < 0 ? ANY_THIRD : thirds[third]! & ~ANY_THIRD;
      }
    }
  }
  for (let c = 0; c < 256; c++) {
    if (!isControlByte(c)) continue;
    for (let b = 0; b < 256; b++) {
      pairs[c | (b << 8)]! |= GRAM_CONTROL;
      buckets[c | (b << 8)] = 0xff;
    }
  }
  return { pairs, buckets, thirds, trigrams, offsets: restartOffsets(keywords, grams) };
}

/**
 * Where the loop restarts the automaton when a trigram gram passes at g: g minus the largest d
 * such that some keyword holds that trigram (any case) at offset d, no later than its own gram
 * (d <= the gram's offset, itself at most GRAM_OFFSET_LIMIT). Then no keyword occurrence begins
 * before the restart while its gram lies at or after it (a gram there would have passed first,
 * or the occurrence holds the trigram at g at an offset <= d): every occurrence is still found
 * from its start, and most restarts ("key", "api": their own gram) go no step back at all.
 * Two-character keywords (GRAM_DIRECT) restart GRAM_OFFSET_LIMIT back, as before.
 */
function restartOffsets(keywords: readonly string[], grams: readonly { bit: number; offset: number; keyword?: string }[]): Uint8Array {
  const offsets = new Uint8Array(1 << TRIGRAM_HASH_BITS);
  const gramOffset = new Map<string, number>(); // keyword -> its gram's offset
  for (const g of grams) if (g.bit === GRAM_TRIGRAM && g.keyword !== undefined) gramOffset.set(g.keyword, Math.max(gramOffset.get(g.keyword) ?? 0, g.offset));
  const mark = (a: number, b: number, c: number, d: number) => {
    const h = trigramHash(a | (b << 8) | (c << 16));
    offsets[h] = Math.max(offsets[h]!, d);
  };
  for (const keyword of keywords) {
    const lower = keyword.toLowerCase();
    const limit = gramOffset.get(lower);
    if (limit === undefined) continue;
    for (let d = 1; d <= limit && d + 3 <= lower.length; d++) mark(lower.charCodeAt(d), lower.charCodeAt(d + 1), lower.charCodeAt(d + 2), d);
  }
  return offsets;
}
