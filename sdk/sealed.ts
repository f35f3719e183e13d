// Sealing what an extension stores that nobody should read from a copy of its database: credentials,
// memories, notes. The extension's own key comes from the kernel, derived from the deployment's sealing
// key (kernel/auth/sealing-key.ts), as the secret ROOST_EXTENSION_KEY (the extension needs the `secrets`
// capability). Two keys are derived from it: one for AES-256-GCM, one for keyed digests (HMAC-SHA256).
// A sealed value is text: "v1." + base64url of 12-byte IV | 16-byte tag | ciphertext. The `context`
// (say, the row's tenant and id) is bound as additional data, so a value copied into another row does
// not open there.
import { createCipheriv, createDecipheriv, createHmac, hkdfSync, randomBytes } from 'node:crypto';
import { RoostError } from '../protocol/errors.js';
import type { HostClient } from './host-client.js';

const VERSION = 'v1.';
const IV_BYTES = 12;
const TAG_BYTES = 16;

export class Sealer {
  private readonly encryptionKey: Buffer;
  private readonly digestKey: Buffer;

  constructor(key: Buffer) {
    const derive = (purpose: string) => Buffer.from(hkdfSync('sha256', key, Buffer.alloc(0), `roost sealed ${purpose}`, 32));
    this.encryptionKey = derive('encryption');
    this.digestKey = derive('digest');
  }

  static async forExtension(host: HostClient): Promise<Sealer> {
    const hex = await host.secret('ROOST_EXTENSION_KEY');
    if (!hex || !/^[0-9a-f]{64}$/.test(hex)) throw new RoostError('EXTENSION_UNAVAILABLE', 'the host gave no sealing key: this extension needs the "secrets" capability');
    return new Sealer(Buffer.from(hex, 'hex'));
  }

  seal(plaintext: string, context = ''): string {
    const iv = randomBytes(IV_BYTES);
    const cipher = createCipheriv('aes-256-gcm', this.encryptionKey, iv).setAAD(Buffer.from(context));
    const body = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
    return VERSION + Buffer.concat([iv, cipher.getAuthTag(), body]).toString('base64url');
  }

  open(sealed: string, context = ''): string {
    const bytes = sealed.startsWith(VERSION) ? Buffer.from(sealed.slice(VERSION.length), 'base64url') : Buffer.alloc(0);
    if (bytes.length < IV_BYTES + TAG_BYTES) throw new RoostError('INTERNAL', 'a stored value is not sealed in a form this version reads');
    try {
      const decipher = createDecipheriv('aes-256-gcm', this.encryptionKey, bytes.subarray(0, IV_BYTES)).setAAD(Buffer.from(context));
      decipher.setAuthTag(bytes.subarray(IV_BYTES, IV_BYTES + TAG_BYTES));
      return Buffer.concat([decipher.update(bytes.subarray(IV_BYTES + TAG_BYTES)), decipher.final()]).toString('utf8');
    } catch {
      throw new RoostError('INTERNAL', "a stored value does not open with this deployment's sealing key (was ROOST_SEALING_KEY or <dataDir>/sealing.key changed?)");
    }
  }

  /**
   * A keyed, deterministic digest of a value for one purpose: equal values give equal digests, so sealed
   * rows can be found by an exact name or word without it being stored.
   */
  digest(value: string, purpose: string): Buffer {
    return createHmac('sha256', this.digestKey).update(`${purpose}\0${value}`).digest();
  }

  /** What identifies the key without revealing it: stored once, a changed sealing key is noticed. */
  fingerprint(): string {
    return this.digest('fingerprint', 'key').toString('hex');
  }
}
