// The instance owner's key. ROOST_API_KEY is adopted as given; a server bound beyond loopback with no
// key generates one on first start and writes it once to <data dir>/owner.key (mode 0600).
import { access, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Kernel } from '../kernel.js';
import { isLoopback } from './identity.js';
import { DEFAULT_TENANT } from './keys.js';

/** What this module uses of the kernel. */
export type OwnerKeyDeps = Pick<Kernel, 'config' | 'keys' | 'log'>;

export async function ensureOwnerKey(k: OwnerKeyDeps): Promise<void> {
  if (k.config.apiKey) return k.keys.adopt(k.config.apiKey, DEFAULT_TENANT, 'ROOST_API_KEY');
  const loopbackOnly = isLoopback(k.config.host) || k.config.host === 'localhost';
  if (loopbackOnly) return;
  const owners = (await k.keys.list(DEFAULT_TENANT)).filter((key) => key.role === 'owner');
  if (owners.length > 0) return;
  const file = join(k.config.dataDir, 'owner.key');
  const exists = await access(file).then(() => true, () => false);
  const { key } = await k.keys.create(DEFAULT_TENANT, 'owner', 'generated on first remote bind', null);
  await writeFile(file, `${key}\n`, { mode: 0o600, flag: exists ? 'w' : 'wx' });
  k.log('warn', `no ROOST_API_KEY was set and the server listens on ${k.config.host}: an owner key was generated and written to ${file}`);
}
