// Encryption at rest. Everything a memory, library entry or observation says is sealed with
// AES-256-GCM under a key derived from the ROOST_SECRET_MEMORY_KEY secret the kernel hands this
// extension; the database holds only ciphertext, keyed hashes of names (for exact lookups) and a
// blind index of keyed word hashes (for keyword search), so a copy of it alone reveals nothing.
import { createCipheriv, createDecipheriv, createHmac, hkdfSync, randomBytes } from 'node:crypto';
import { RoostError } from '../../protocol/errors.js';

export const SECRET_NAME = 'ROOST_SECRET_MEMORY_KEY';
const MIN_SECRET_LENGTH = 32;
const IV_BYTES = 12;
const TAG_BYTES = 16;
const VERSION = 'v1';
/** Letters only: both FTS5's tokenizer and PostgreSQL's text parser keep such a word whole. */
const TOKEN_LETTERS = 'abcdefghijklmnop';
const TOKEN_BYTES = 12;

export class Sealer {
  private readonly encryptionKey: Buffer;
  private readonly indexKey: Buffer;

  constructor(secret: string) {
    if (secret.length < MIN_SECRET_LENGTH) {
      throw new RoostError('EXTENSION_UNAVAILABLE', `${SECRET_NAME} must be at least ${MIN_SECRET_LENGTH} characters (try: openssl rand -base64 32)`);
    }
    const derive = (info: string) => Buffer.from(hkdfSync('sha256', secret, 'roost-memory', info, 32));
    this.encryptionKey = derive('encryption');
    this.indexKey = derive('blind-index');
  }

  /** Ciphertext bound to `context` (kind, tenant, owner): a row moved to another owner no longer opens. */
  seal(plaintext: string, context: string): string {
    const iv = randomBytes(IV_BYTES);
    const cipher = createCipheriv('aes-256-gcm', this.encryptionKey, iv);
    cipher.setAAD(Buffer.from(context));
    const body = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
    return `${VERSION}:${Buffer.concat([iv, cipher.getAuthTag(), body]).toString('base64')}`;
  }

  open(sealed: string, context: string): string {
    const [version, data] = sealed.split(':', 2);
    const raw = Buffer.from(data ?? '', 'base64');
    if (version !== VERSION || raw.length < IV_BYTES + TAG_BYTES) throw new RoostError('INTERNAL', 'a stored record is not in a known sealed format');
    try {
      const decipher = createDecipheriv('aes-256-gcm', this.encryptionKey, raw.subarray(0, IV_BYTES));
      decipher.setAAD(Buffer.from(context));
      decipher.setAuthTag(raw.subarray(IV_BYTES, IV_BYTES + TAG_BYTES));
      return Buffer.concat([decipher.update(raw.subarray(IV_BYTES + TAG_BYTES)), decipher.final()]).toString('utf8');
    } catch (err) {
      throw new RoostError('INTERNAL', `a stored record does not open with this ${SECRET_NAME}`, { cause: err });
    }
  }

  /** A keyed hash of an exact value (a memory key, a library name), for lookups and uniqueness. */
  lookupHash(value: string, scope: string): string {
    return this.hmac(`name\0${scope}\0${value}`).toString('hex');
  }

  /** The blind-index word for `word` in `scope`: the same word gives the same token only within one scope. */
  token(word: string, scope: string): string {
    const bytes = this.hmac(`word\0${scope}\0${word}`).subarray(0, TOKEN_BYTES);
    let out = '';
    for (const byte of bytes) out += TOKEN_LETTERS[byte >> 4]! + TOKEN_LETTERS[byte & 15]!;
    return out;
  }

  /** What identifies this key without revealing it: stored once, so a changed secret is noticed. */
  fingerprint(): string {
    return this.hmac('fingerprint').toString('hex');
  }

  private hmac(value: string): Buffer {
    return createHmac('sha256', this.indexKey).update(value).digest();
  }
}
