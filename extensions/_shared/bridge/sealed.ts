// Bridge credentials at rest: AES-256-GCM under a key derived (HKDF-SHA256, per extension) from
// ROOST_SECRET_BRIDGE_KEY, or, when that is unset, from random key material generated once and kept in the
// kernel's plugin store — another database than the extension's own, where the sealed values live.
import { createCipheriv, createDecipheriv, hkdfSync, randomBytes } from 'node:crypto';
import { RoostError } from '../../../protocol/errors.js';
import type { HostClient } from '../host-client.js';

const STORE_KEY = 'bridge-key';
const VERSION = 'v1';

export async function bridgeKey(host: HostClient, extension: string): Promise<Buffer> {
  let material = await host.secret('ROOST_SECRET_BRIDGE_KEY');
  if (!material) {
    material = await host.load(STORE_KEY);
    if (!material) {
      await host.store(STORE_KEY, randomBytes(32).toString('base64'));
      // Read back, so two instances racing on first start settle on what the store kept.
      material = await host.load(STORE_KEY);
    }
  }
  if (!material) throw new RoostError('INTERNAL', 'no key to seal bridge credentials: set ROOST_SECRET_BRIDGE_KEY or grant the store capability');
  return Buffer.from(hkdfSync('sha256', material, 'roost-bridge-credentials', extension, 32));
}

export function seal(key: Buffer, plaintext: string): string {
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', key, iv);
  const body = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
  return `${VERSION}:${Buffer.concat([iv, cipher.getAuthTag(), body]).toString('base64')}`;
}

export function unseal(key: Buffer, sealed: string): string {
  const [version, data] = sealed.split(':');
  if (version !== VERSION || !data) throw new RoostError('INTERNAL', 'a sealed credential has an unknown format');
  const raw = Buffer.from(data, 'base64');
  const decipher = createDecipheriv('aes-256-gcm', key, raw.subarray(0, 12));
  decipher.setAuthTag(raw.subarray(12, 28));
  try {
    return Buffer.concat([decipher.update(raw.subarray(28)), decipher.final()]).toString('utf8');
  } catch {
    throw new RoostError('INTERNAL', 'a sealed credential does not open with the current key (was ROOST_SECRET_BRIDGE_KEY changed?)');
  }
}
