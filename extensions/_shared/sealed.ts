// Secrets at rest for extensions that keep third-party credentials (notification channels, chat
// bridges): AES-256-GCM with a random 96-bit nonce per value, from node:crypto. The key comes from the
// server's environment through `host.secret(<name>)` (any string; SHA-256 makes it 32 bytes), or, when
// that is unset, is generated once and kept in the kernel's key/value store (`store` capability), which
// lives in the kernel's database, never in the extension's own.
import { createCipheriv, createDecipheriv, createHash, randomBytes } from 'node:crypto';
import { RoostError } from '../../protocol/errors.js';
import type { HostClient } from './host-client.js';

const VERSION = 'v1';
const STORE_KEY = 'sealed.key';

export class Sealer {
  private constructor(private readonly key: Buffer) {}

  /** The extension's sealing key: `host.secret(secretName)`, else one generated and stored in the kernel. */
  static async open(host: HostClient, secretName: string): Promise<Sealer> {
    const configured = await host.secret(secretName);
    if (configured) return new Sealer(createHash('sha256').update(configured).digest());
    let stored = await host.load(STORE_KEY);
    if (!stored) {
      await host.store(STORE_KEY, randomBytes(32).toString('base64'));
      // Read back: of two instances starting at once, both use whichever value was written last.
      stored = await host.load(STORE_KEY);
    }
    if (!stored) throw new RoostError('INTERNAL', `no sealing key: set ${secretName} or grant the "store" capability`);
    return new Sealer(Buffer.from(stored, 'base64'));
  }

  /** `v1.<nonce>.<tag>.<ciphertext>`, base64url parts. */
  seal(plain: string): string {
    const nonce = randomBytes(12);
    const cipher = createCipheriv('aes-256-gcm', this.key, nonce);
    const body = Buffer.concat([cipher.update(plain, 'utf8'), cipher.final()]);
    return [VERSION, nonce, cipher.getAuthTag(), body].map((p) => (typeof p === 'string' ? p : p.toString('base64url'))).join('.');
  }

  unseal(sealed: string): string {
    const [version, nonce, tag, body] = sealed.split('.');
    if (version !== VERSION || !nonce || !tag || body === undefined) throw new RoostError('INTERNAL', 'a sealed value is damaged');
    try {
      const decipher = createDecipheriv('aes-256-gcm', this.key, Buffer.from(nonce, 'base64url'));
      decipher.setAuthTag(Buffer.from(tag, 'base64url'));
      return Buffer.concat([decipher.update(Buffer.from(body, 'base64url')), decipher.final()]).toString('utf8');
    } catch {
      throw new RoostError('INTERNAL', 'a sealed value cannot be opened with this key (was the sealing key changed?)');
    }
  }

  sealJson(value: Record<string, unknown>): string {
    return this.seal(JSON.stringify(value));
  }

  unsealJson(sealed: string | null): Record<string, unknown> {
    return sealed ? (JSON.parse(this.unseal(sealed)) as Record<string, unknown>) : {};
  }
}
