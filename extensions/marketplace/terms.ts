// Words for the search index and for queries, the same way on both: lower case, accents dropped, split
// on anything that is not a letter or digit, a plural "s" trimmed, very short and very common words left out.
const STOP = new Set(['the', 'and', 'for', 'with', 'that', 'this', 'from', 'into', 'are', 'was', 'you', 'your', 'our', 'its', 'can', 'will', 'all', 'any', 'not']);
export const MAX_TERM_LENGTH = 40;

export function words(text: string): string[] {
  const plain = text.normalize('NFKD').replace(/\p{M}/gu, '').toLowerCase();
  const out: string[] = [];
  for (const raw of plain.split(/[^\p{L}\p{N}]+/u)) {
    if (raw.length < 2 || STOP.has(raw)) continue;
    const word = raw.length > 3 && raw.endsWith('s') && !raw.endsWith('ss') ? raw.slice(0, -1) : raw;
    out.push(word.slice(0, MAX_TERM_LENGTH));
  }
  return out;
}

/** A listing's terms with their weights: a word in the name counts 3, in a tag 2, in the description 1. */
export function weightedTerms(listing: { name: string; tags: string[]; description: string }): Map<string, number> {
  const terms = new Map<string, number>();
  const add = (text: string, weight: number) => {
    for (const w of words(text)) terms.set(w, (terms.get(w) ?? 0) + weight);
  };
  add(listing.name, 3);
  for (const tag of listing.tags) add(tag, 2);
  add(listing.description, 1);
  return terms;
}
