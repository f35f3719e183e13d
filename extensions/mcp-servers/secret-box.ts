// AES-256-GCM for the secret parts of a config (env values, header values). The key is the secret
// ROOST_SECRET_MCP_SERVERS_KEY when the operator sets one (any string: it is hashed to 32 bytes), else
// 32 random bytes generated once and kept in the kernel's key/value store — outside this extension's
// database, so a copy of that database alone reveals no secret. Each ciphertext is bound to its record
// (tenant and id as additional data): a value moved to another row does not decrypt.
import { createCipheriv, createDecipheriv, createHash, randomBytes } from 'node:crypto';
import { RoostError } from '../../protocol/errors.js';
import type { HostClient } from '../_shared/host-client.js';

export const KEY_SECRET = 'ROOST_SECRET_MCP_SERVERS_KEY';
const STORED_KEY = 'mcp-servers.key';
const VERSION = 'v1';

export class SecretBox {
  private constructor(private readonly key: Buffer) {}

  static async open(host: HostClient): Promise<SecretBox> {
    const configured = await host.secret(KEY_SECRET);
    if (configured) return new SecretBox(createHash('sha256').update(configured).digest());
    let stored = await host.load(STORED_KEY);
    if (!stored) {
      await host.store(STORED_KEY, randomBytes(32).toString('hex'));
      // Read back: when two instances raced, both use whichever write stayed.
      stored = await host.load(STORED_KEY);
    }
    if (!stored || !/^[0-9a-f]{64}$/.test(stored)) throw new RoostError('INTERNAL', 'the stored MCP servers key is missing or malformed');
    return new SecretBox(Buffer.from(stored, 'hex'));
  }

  seal(plain: string, binding: string): string {
    const iv = randomBytes(12);
    const cipher = createCipheriv('aes-256-gcm', this.key, iv);
    cipher.setAAD(Buffer.from(binding));
    const data = Buffer.concat([cipher.update(plain, 'utf8'), cipher.final()]);
    return [VERSION, iv.toString('base64'), cipher.getAuthTag().toString('base64'), data.toString('base64')].join(':');
  }

  open(sealed: string, binding: string): string {
    const [version, iv, tag, data] = sealed.split(':');
    if (version !== VERSION || !iv || !tag || data === undefined) throw new RoostError('INTERNAL', 'a stored secret has an unknown format');
    try {
      const decipher = createDecipheriv('aes-256-gcm', this.key, Buffer.from(iv, 'base64'));
      decipher.setAAD(Buffer.from(binding));
      decipher.setAuthTag(Buffer.from(tag, 'base64'));
      return Buffer.concat([decipher.update(Buffer.from(data, 'base64')), decipher.final()]).toString('utf8');
    } catch {
      throw new RoostError('INTERNAL', `the secrets of an MCP server config cannot be decrypted: was ${KEY_SECRET} changed?`);
    }
  }
}
