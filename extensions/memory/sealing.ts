// Encryption at rest for memory. Everything a memory, library entry or observation says is sealed with
// this extension's key (sdk/sealed.ts); the database holds only ciphertext, keyed hashes
// of names (for exact lookups) and a blind index of keyed word hashes (for keyword search), so a copy of
// it alone reveals nothing.
import type { Sealer } from '../../sdk/sealed.js';

/** Letters only: both FTS5's tokenizer and PostgreSQL's text parser keep such a word whole. */
const TOKEN_LETTERS = 'abcdefghijklmnop';
const TOKEN_BYTES = 12;

export class MemorySealer {
  constructor(private readonly sealer: Sealer) {}

  /** Ciphertext bound to `context` (kind, tenant, owner): a row moved to another owner no longer opens. */
  seal(plaintext: string, context: string): string {
    return this.sealer.seal(plaintext, context);
  }

  open(sealed: string, context: string): string {
    return this.sealer.open(sealed, context);
  }

  /** A keyed hash of an exact value (a memory key, a library name), for lookups and uniqueness. */
  lookupHash(value: string, scope: string): string {
    return this.sealer.digest(`${scope}\0${value}`, 'memory name').toString('hex');
  }

  /** The blind-index word for `word` in `scope`: the same word gives the same token only within one scope. */
  token(word: string, scope: string): string {
    const bytes = this.sealer.digest(`${scope}\0${word}`, 'memory word').subarray(0, TOKEN_BYTES);
    let out = '';
    for (const byte of bytes) out += TOKEN_LETTERS[byte >> 4]! + TOKEN_LETTERS[byte & 15]!;
    return out;
  }

  fingerprint(): string {
    return this.sealer.fingerprint();
  }
}
