// Remote servers' API keys at rest: AES-256-GCM with a key derived (HKDF-SHA256) from the secret
// ROOST_SECRET_A2A_KEY, which the kernel hands this extension. A copy of the database alone reveals no key.
import { createCipheriv, createDecipheriv, hkdfSync, randomBytes } from 'node:crypto';
import { RoostError } from '../../protocol/errors.js';
import type { HostClient } from '../_shared/host-client.js';

export const KEY_SECRET = 'ROOST_SECRET_A2A_KEY';
const VERSION = 'v1';

export class Sealer {
  private constructor(private readonly key: Buffer) {}

  static async from(host: HostClient): Promise<Sealer> {
    const secret = await host.secret(KEY_SECRET);
    if (!secret) {
      throw new RoostError('EXTENSION_UNAVAILABLE', `remote servers' API keys are stored encrypted, and no key is set: set ${KEY_SECRET} in the server's environment (any long random string) and restart`);
    }
    return new Sealer(Buffer.from(hkdfSync('sha256', secret, 'roost-a2a', 'remote api keys', 32)));
  }

  /** "v1.<iv>.<tag>.<ciphertext>", base64url; `aad` binds the sealed key to its remote and tenant. */
  seal(plaintext: string, aad: string): string {
    const iv = randomBytes(12);
    const cipher = createCipheriv('aes-256-gcm', this.key, iv).setAAD(Buffer.from(aad));
    const data = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
    return [VERSION, iv, cipher.getAuthTag(), data].map((p) => (typeof p === 'string' ? p : p.toString('base64url'))).join('.');
  }

  open(sealed: string, aad: string): string {
    const [version, iv, tag, data] = sealed.split('.');
    if (version !== VERSION || !iv || !tag || data === undefined) throw new RoostError('INTERNAL', 'a stored remote key is not in a known format');
    try {
      const decipher = createDecipheriv('aes-256-gcm', this.key, Buffer.from(iv, 'base64url')).setAAD(Buffer.from(aad));
      decipher.setAuthTag(Buffer.from(tag, 'base64url'));
      return Buffer.concat([decipher.update(Buffer.from(data, 'base64url')), decipher.final()]).toString('utf8');
    } catch {
      throw new RoostError('EXTENSION_UNAVAILABLE', `a stored remote key cannot be decrypted: ${KEY_SECRET} changed since it was stored; register the remote's key again`);
    }
  }
}
