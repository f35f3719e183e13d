// A server's Ed25519 signing key, one per extension that signs (marketplace federation feeds, reputation
// attestations). It is derived from the extension's own sealing key (sealed.ts: HKDF of the deployment's
// sealing key), so it is never stored, is the same on every instance of one deployment, and changes only
// when the sealing key does. Signed documents are envelopes: the exact JSON text that was signed
// (`payload`), its signature and the key's id, so anyone verifies them with any Ed25519 library and
// the published public key, without re-serialising anything.
import { createHash, createPrivateKey, createPublicKey, hkdfSync, sign, verify, type KeyObject } from 'node:crypto';
import { RoostError } from '../protocol/errors.js';
import type { HostClient } from './host-client.js';

/** The DER prefix of a PKCS#8 Ed25519 private key; the 32-byte seed follows it (RFC 8410). */
const PKCS8_ED25519_PREFIX = Buffer.from('302e020100300506032b657004220420', 'hex');

export interface SignedEnvelope {
  algorithm: 'Ed25519';
  keyId: string;
  /** The signed JSON text, exactly as signed. */
  payload: string;
  /** base64url of the Ed25519 signature over the UTF-8 bytes of `payload`. */
  signature: string;
}

/** What a server publishes at its well-known key URL. */
export interface PublishedKey {
  algorithm: 'Ed25519';
  keyId: string;
  /** base64url of the raw 32-byte public key. */
  publicKey: string;
  publicKeyPem: string;
}

export class SigningKey {
  private constructor(
    private readonly privateKey: KeyObject,
    readonly published: PublishedKey,
  ) {}

  static fromSeed(seed: Buffer): SigningKey {
    const privateKey = createPrivateKey({ key: Buffer.concat([PKCS8_ED25519_PREFIX, seed]), format: 'der', type: 'pkcs8' });
    const publicKey = createPublicKey(privateKey);
    const raw = rawPublicKey(publicKey);
    return new SigningKey(privateKey, {
      algorithm: 'Ed25519',
      keyId: keyIdOf(raw),
      publicKey: raw.toString('base64url'),
      publicKeyPem: publicKey.export({ format: 'pem', type: 'spki' }).toString(),
    });
  }

  /**
   * The extension's key, derived from ROOST_EXTENSION_KEY (capability "secrets"); `purpose` names its
   * use. Derived once per process (a failure is not kept, so a later call asks again).
   */
  static forExtension(host: HostClient, purpose: string): Promise<SigningKey> {
    let key = derived.get(purpose);
    if (!key) {
      key = derive(host, purpose);
      derived.set(purpose, key);
      key.catch(() => derived.delete(purpose));
    }
    return key;
  }

  sign(statement: unknown): SignedEnvelope {
    const payload = JSON.stringify(statement);
    const signature = sign(null, Buffer.from(payload, 'utf8'), this.privateKey).toString('base64url');
    return { algorithm: 'Ed25519', keyId: this.published.keyId, payload, signature };
  }
}

const derived = new Map<string, Promise<SigningKey>>();

async function derive(host: HostClient, purpose: string): Promise<SigningKey> {
  const hex = await host.secret('ROOST_EXTENSION_KEY');
  if (!hex || !/^[0-9a-f]{64}$/.test(hex)) throw new RoostError('EXTENSION_UNAVAILABLE', 'the host gave no sealing key: this extension needs the "secrets" capability');
  return SigningKey.fromSeed(Buffer.from(hkdfSync('sha256', Buffer.from(hex, 'hex'), Buffer.alloc(0), `roost ed25519 ${purpose}`, 32)));
}

/** The first 16 bytes of SHA-256 of the raw public key, hex. */
export function keyIdOf(rawKey: Buffer): string {
  return createHash('sha256').update(rawKey).digest('hex').slice(0, 32);
}

function rawPublicKey(key: KeyObject): Buffer {
  const jwk = key.export({ format: 'jwk' });
  return Buffer.from(String(jwk.x), 'base64url');
}

/** A public key from its published form, or undefined when the document is not an Ed25519 key. */
export function publicKeyFrom(published: unknown): { key: KeyObject; keyId: string } | undefined {
  const doc = published as Partial<PublishedKey> | null;
  if (!doc || doc.algorithm !== 'Ed25519' || typeof doc.publicKey !== 'string') return undefined;
  const raw = Buffer.from(doc.publicKey, 'base64url');
  if (raw.length !== 32) return undefined;
  try {
    return { key: createPublicKey({ key: { kty: 'OKP', crv: 'Ed25519', x: raw.toString('base64url') }, format: 'jwk' }), keyId: keyIdOf(raw) };
  } catch {
    return undefined;
  }
}

/** Checks an envelope against a public key; returns the parsed statement, or why it is refused. */
export function openEnvelope(envelope: unknown, key: { key: KeyObject; keyId: string }): { ok: true; statement: unknown } | { ok: false; reason: string } {
  const e = envelope as Partial<SignedEnvelope> | null;
  if (!e || typeof e !== 'object' || e.algorithm !== 'Ed25519' || typeof e.payload !== 'string' || typeof e.signature !== 'string' || typeof e.keyId !== 'string') {
    return { ok: false, reason: 'not a signed envelope: algorithm "Ed25519", keyId, payload and signature are required' };
  }
  if (e.keyId !== key.keyId) return { ok: false, reason: `signed by key ${e.keyId.slice(0, 64)}, not by the issuer's key ${key.keyId}` };
  const signature = Buffer.from(e.signature, 'base64url');
  if (signature.length !== 64 || !verify(null, Buffer.from(e.payload, 'utf8'), key.key, signature)) return { ok: false, reason: 'the signature does not verify with the issuer\'s key' };
  try {
    return { ok: true, statement: JSON.parse(e.payload) };
  } catch {
    return { ok: false, reason: 'the signed payload is not JSON' };
  }
}
