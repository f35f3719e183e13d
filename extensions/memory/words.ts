// The words a text is found by. Words are normalised (Unicode NFKC, lower case, letters and digits
// only, common English words dropped) and each becomes a keyed token (MemorySealer.token), so the index
// finds exact words without holding them: no prefixes, no stemming, no fuzzy matches.
import type { MemorySealer } from './sealing.js';

const STOP_WORDS = new Set(
  ('a an and are as at be but by can could did do does for from had has have how i if in into is it its me my no not of on or our so ' +
    'than that the their them then there these they this to was we were what when where which who why will with would you your').split(' '),
);
const MIN_WORD = 2;
const MAX_WORD = 64;
/** Enough words to find a long note by; the rest of a very long text is not indexed. */
const MAX_WORDS = 4_000;
/** A search uses at most this many distinct words of its query (a whole prompt can be a query). */
const MAX_QUERY_WORDS = 32;

export function wordsOf(text: string): string[] {
  const words: string[] = [];
  for (const word of text.normalize('NFKC').toLowerCase().split(/[^\p{L}\p{N}]+/u)) {
    if (word.length < MIN_WORD || word.length > MAX_WORD || STOP_WORDS.has(word)) continue;
    words.push(word);
    if (words.length === MAX_WORDS) break;
  }
  return words;
}

/** The blind index of a document: its words' tokens, then its tags' tokens, space-separated. */
export function indexText(sealer: MemorySealer, scope: string, text: string, tags: string[] = []): string {
  return [...wordsOf(text).map((w) => sealer.token(w, scope)), ...tags.map((t) => tagToken(sealer, scope, t))].join(' ');
}

export function tagToken(sealer: MemorySealer, scope: string, tag: string): string {
  return sealer.token(`\0tag\0${tag.normalize('NFKC').toLowerCase()}`, scope);
}

/** The distinct tokens of a query's words (empty when it has no searchable word). */
export function queryTokens(sealer: MemorySealer, scope: string, query: string): string[] {
  return [...new Set(wordsOf(query))].slice(0, MAX_QUERY_WORDS).map((w) => sealer.token(w, scope));
}
