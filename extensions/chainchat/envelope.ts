// The note of a chainchat transaction: a small binary header and an AES-256-GCM ciphertext. A message
// longer than one note (1,024 bytes on Algorand) is split into numbered chunks sharing a message id,
// each sealed on its own with a fresh random nonce. The message key is derived with HKDF from the
// shared secret (a pre-shared key, an X25519 agreement, or the account's memory key) and the message id;
// the header and both addresses are authenticated, so a note copied into another transaction, or
// between senders, does not open.
//
//   "RC" | version 1 | mode (P psk, X x25519, M a note to itself: memories, agent messages) | key field | msgId (8) | index | total | nonce (12) | ciphertext+tag
//   key field: P and M: the key's id (8 bytes); X: the sender's X25519 public key (32 bytes)
import { createCipheriv, createDecipheriv, createHash, hkdfSync, randomBytes } from 'node:crypto';

export type Mode = 'P' | 'X' | 'M';

export const MAX_NOTE_BYTES = 1_024;
const MAGIC = Buffer.from('RC\x01', 'latin1');
const NONCE_BYTES = 12;
const TAG_BYTES = 16;
const MSG_ID_BYTES = 8;
const KEY_ID_BYTES = 8;
const X25519_KEY_BYTES = 32;
/** The note prefix every chainchat note starts with (indexer searches use it). */
export const NOTE_PREFIX = MAGIC;

export interface Envelope {
  mode: Mode;
  /** P/M: the key id; X: the sender's X25519 public key. */
  keyField: Buffer;
  msgId: Buffer;
  index: number;
  total: number;
  nonce: Buffer;
  ciphertext: Buffer;
  /** The header bytes (authenticated). */
  header: Buffer;
}

const keyFieldBytes = (mode: Mode) => (mode === 'X' ? X25519_KEY_BYTES : KEY_ID_BYTES);
const headerBytes = (mode: Mode) => MAGIC.length + 1 + keyFieldBytes(mode) + MSG_ID_BYTES + 2;

/** The most plaintext bytes one note carries in this mode. */
export const chunkCapacity = (mode: Mode) => MAX_NOTE_BYTES - headerBytes(mode) - NONCE_BYTES - TAG_BYTES;

/** A key's public id: what a note names so the receiver knows which of its keys to try. */
export const keyIdOf = (key: Buffer): Buffer => createHash('sha256').update('roost chainchat key id\0').update(key).digest().subarray(0, KEY_ID_BYTES);

function messageKey(secret: Buffer, mode: Mode, msgId: Buffer): Buffer {
  return Buffer.from(hkdfSync('sha256', secret, msgId, `roost chainchat v1 ${mode}`, 32));
}

/** Who sent to whom (Algorand public keys): bound into every chunk as additional data. */
export interface Parties {
  sender: Uint8Array;
  receiver: Uint8Array;
}

/** Seals `plaintext` into as many notes as it needs; throws when it needs more than `maxChunks`. */
export function sealNotes(plaintext: string, input: { mode: Mode; secret: Buffer; keyField: Buffer; parties: Parties; maxChunks: number }): Uint8Array[] {
  if (input.keyField.length !== keyFieldBytes(input.mode)) throw new Error(`a ${input.mode} note's key field is ${keyFieldBytes(input.mode)} bytes`);
  const bytes = Buffer.from(plaintext, 'utf8');
  const capacity = chunkCapacity(input.mode);
  const total = Math.max(1, Math.ceil(bytes.length / capacity));
  if (total > input.maxChunks || total > 255) throw new RangeError(`the message needs ${total} notes, over the limit of ${Math.min(input.maxChunks, 255)} (${input.maxChunks * capacity} bytes)`);
  const msgId = randomBytes(MSG_ID_BYTES);
  const key = messageKey(input.secret, input.mode, msgId);
  const notes: Uint8Array[] = [];
  for (let index = 0; index < total; index++) {
    const header = Buffer.concat([MAGIC, Buffer.from(input.mode, 'latin1'), input.keyField, msgId, Buffer.from([index, total])]);
    const nonce = randomBytes(NONCE_BYTES);
    const cipher = createCipheriv('aes-256-gcm', key, nonce).setAAD(aad(header, input.parties));
    const body = Buffer.concat([cipher.update(bytes.subarray(index * capacity, (index + 1) * capacity)), cipher.final()]);
    notes.push(new Uint8Array(Buffer.concat([header, nonce, body, cipher.getAuthTag()])));
  }
  return notes;
}

/** The envelope of a note, or undefined when the note is not a chainchat note (a plain payment). */
export function parseNote(note: Uint8Array): Envelope | undefined {
  const bytes = Buffer.from(note);
  if (bytes.length < MAGIC.length + 1 || !bytes.subarray(0, MAGIC.length).equals(MAGIC)) return undefined;
  const mode = String.fromCharCode(bytes[MAGIC.length]!) as Mode;
  if (mode !== 'P' && mode !== 'X' && mode !== 'M') return undefined;
  const headerLength = headerBytes(mode);
  if (bytes.length < headerLength + NONCE_BYTES + TAG_BYTES) return undefined;
  let at = MAGIC.length + 1;
  const keyField = bytes.subarray(at, (at += keyFieldBytes(mode)));
  const msgId = bytes.subarray(at, (at += MSG_ID_BYTES));
  const index = bytes[at]!;
  const total = bytes[at + 1]!;
  if (total === 0 || index >= total) return undefined;
  return {
    mode, keyField, msgId, index, total,
    header: bytes.subarray(0, headerLength),
    nonce: bytes.subarray(headerLength, headerLength + NONCE_BYTES),
    ciphertext: bytes.subarray(headerLength + NONCE_BYTES),
  };
}

/** Opens a complete set of chunks (any order); throws when one does not authenticate. */
export function openNotes(chunks: Envelope[], secret: Buffer, parties: Parties): string {
  const sorted = [...chunks].sort((a, b) => a.index - b.index);
  const first = sorted[0]!;
  if (sorted.length !== first.total || sorted.some((c, i) => c.index !== i || c.total !== first.total || !c.msgId.equals(first.msgId))) {
    throw new Error('the chunks do not make one whole message');
  }
  const key = messageKey(secret, first.mode, first.msgId);
  const parts = sorted.map((c) => {
    const decipher = createDecipheriv('aes-256-gcm', key, c.nonce).setAAD(aad(c.header, parties));
    decipher.setAuthTag(c.ciphertext.subarray(c.ciphertext.length - TAG_BYTES));
    return Buffer.concat([decipher.update(c.ciphertext.subarray(0, c.ciphertext.length - TAG_BYTES)), decipher.final()]);
  });
  return Buffer.concat(parts).toString('utf8');
}

function aad(header: Buffer, parties: Parties): Buffer {
  return Buffer.concat([header, Buffer.from(parties.sender), Buffer.from(parties.receiver)]);
}
