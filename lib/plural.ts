// Counts in sentences a person reads: "1 module", "2 modules".

/** `n` and the noun, plural unless n is 1 (`plural` for nouns that do not just take an s). */
export function count(n: number, noun: string, plural = `${noun}s`): string {
  return `${n} ${n === 1 ? noun : plural}`;
}
