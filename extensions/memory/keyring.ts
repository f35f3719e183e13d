// The Sealer of this process, made once from the secret the kernel hands over. The key's fingerprint
// is stored on first use, so a changed secret is refused with a clear error instead of failing on
// every record.
import { RoostError } from '../../protocol/errors.js';
import type { ExtensionContext } from '../_shared/extension.js';
import { SECRET_NAME, Sealer } from './sealing.js';

const FINGERPRINT = 'key_fingerprint';
let ready: Promise<Sealer> | undefined;

export function sealerOf(ctx: ExtensionContext): Promise<Sealer> {
  ready ??= open(ctx).catch((err) => {
    ready = undefined; // the operator may set the secret and the extension be restarted: ask again next time
    throw err;
  });
  return ready;
}

async function open(ctx: ExtensionContext): Promise<Sealer> {
  const secret = await ctx.host.secret(SECRET_NAME);
  if (!secret) {
    throw new RoostError('EXTENSION_UNAVAILABLE', `memory is encrypted at rest and needs a key: set ${SECRET_NAME} (32 or more random characters, e.g. from openssl rand -base64 32) in the server's environment`);
  }
  const sealer = new Sealer(secret);
  const fingerprint = sealer.fingerprint();
  await ctx.db('memory_meta').insert({ name: FINGERPRINT, value: fingerprint }).onConflict('name').ignore();
  const stored = await ctx.db('memory_meta').where({ name: FINGERPRINT }).first();
  if (stored?.value !== fingerprint) {
    throw new RoostError('EXTENSION_UNAVAILABLE', `${SECRET_NAME} is not the key these memories were sealed with; restore the previous key`);
  }
  return sealer;
}
