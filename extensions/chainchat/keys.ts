// The keys of a tenant's chainchat account, all derived from its Algorand secret key (so the mnemonic
// alone restores them): the X25519 key participants agree a secret with, and the keys that seal
// memories and agent-to-agent messages sent on-chain. Pre-shared keys are random 32 bytes, carried in the exchange URI.
import { createPrivateKey, createPublicKey, diffieHellman, hkdfSync, randomBytes, type KeyObject } from 'node:crypto';

/** PKCS#8 DER prefix of a raw X25519 private key (RFC 8410). */
const X25519_PKCS8_PREFIX = Buffer.from('302e020100300506032b656e04220420', 'hex');
/** SPKI DER prefix of a raw X25519 public key. */
const X25519_SPKI_PREFIX = Buffer.from('302a300506032b656e032100', 'hex');

export const newPsk = (): Buffer => randomBytes(32);

const derive = (secretKey: Uint8Array, purpose: string) => Buffer.from(hkdfSync('sha256', Buffer.from(secretKey), Buffer.alloc(0), `roost chainchat ${purpose}`, 32));

export function x25519PrivateFromSeed(seed: Buffer): KeyObject {
  return createPrivateKey({ key: Buffer.concat([X25519_PKCS8_PREFIX, seed]), format: 'der', type: 'pkcs8' });
}

export function x25519PublicRaw(privateKey: KeyObject): Buffer {
  return createPublicKey(privateKey).export({ format: 'der', type: 'spki' }).subarray(X25519_SPKI_PREFIX.length);
}

/** The account's X25519 key pair. */
export function accountX25519(secretKey: Uint8Array): { privateKey: KeyObject; publicKey: Buffer } {
  const privateKey = x25519PrivateFromSeed(derive(secretKey, 'x25519'));
  return { privateKey, publicKey: x25519PublicRaw(privateKey) };
}

/** The secret two X25519 keys agree on; throws for a malformed or low-order public key. */
export function agree(privateKey: KeyObject, peerPublic: Buffer): Buffer {
  let shared: Buffer;
  try {
    const publicKey = createPublicKey({ key: Buffer.concat([X25519_SPKI_PREFIX, peerPublic]), format: 'der', type: 'spki' });
    shared = diffieHellman({ privateKey, publicKey });
  } catch {
    shared = Buffer.alloc(0); // OpenSSL refuses a derivation that gives all zeros
  }
  if (shared.length !== 32 || shared.every((b) => b === 0)) throw new Error('a malformed or low-order X25519 public key');
  return shared;
}

/** The key memories are sealed with on-chain. */
export const memoryKey = (secretKey: Uint8Array): Buffer => derive(secretKey, 'memory');

/** The key agent-to-agent messages are sealed with on-chain (notes the account sends itself, as memories). */
export const agentMessageKey = (secretKey: Uint8Array): Buffer => derive(secretKey, 'agent message');
