// Sealing what an extension stores that nobody should read from a copy of its database: credentials,
// memories, notes. AES-256-GCM with the extension's own key, which the kernel derives from the
// deployment's sealing key (kernel/auth/sealing-key.ts) and hands over as the secret ROOST_EXTENSION_KEY
// (the extension needs the `secrets` capability). A sealed value is text: "v1." + base64url of
// 12-byte IV | 16-byte tag | ciphertext. The `context` (say, the row's tenant and id) is bound as
// additional data, so a sealed value copied into another row does not open there.
import { createCipheriv, createDecipheriv, createHmac, randomBytes } from 'node:crypto';
import { RoostError } from '../../protocol/errors.js';
import type { HostClient } from './host-client.js';

const VERSION = 'v1.';
const IV_BYTES = 12;
const TAG_BYTES = 16;

export class Sealer {
  private constructor(private readonly key: Buffer) {}

  static async forExtension(host: HostClient): Promise<Sealer> {
    const hex = await host.secret('ROOST_EXTENSION_KEY');
    if (!hex || !/^[0-9a-f]{64}$/.test(hex)) throw new RoostError('INTERNAL', 'the host gave no sealing key: the extension needs the "secrets" capability');
    return new Sealer(Buffer.from(hex, 'hex'));
  }

  seal(plaintext: string, context = ''): string {
    const iv = randomBytes(IV_BYTES);
    const cipher = createCipheriv('aes-256-gcm', this.key, iv).setAAD(Buffer.from(context));
    const body = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
    return VERSION + Buffer.concat([iv, cipher.getAuthTag(), body]).toString('base64url');
  }

  open(sealed: string, context = ''): string {
    if (!sealed.startsWith(VERSION)) throw new RoostError('INTERNAL', 'a stored value is not sealed in a form this version reads');
    const bytes = Buffer.from(sealed.slice(VERSION.length), 'base64url');
    const decipher = createDecipheriv('aes-256-gcm', this.key, bytes.subarray(0, IV_BYTES)).setAAD(Buffer.from(context));
    decipher.setAuthTag(bytes.subarray(IV_BYTES, IV_BYTES + TAG_BYTES));
    try {
      return Buffer.concat([decipher.update(bytes.subarray(IV_BYTES + TAG_BYTES)), decipher.final()]).toString('utf8');
    } catch {
      throw new RoostError('INTERNAL', 'a stored value does not open with this deployment\'s sealing key (was ROOST_SEALING_KEY changed?)');
    }
  }

  /**
   * A keyed, deterministic digest of a term (a word of a note, a lookup key): equal terms give equal
   * digests, so sealed rows can be found by exact term without the terms being stored.
   */
  blind(term: string, purpose: string): string {
    return createHmac('sha256', this.key).update(`${purpose}\0${term}`).digest('base64url').slice(0, 22);
  }
}
