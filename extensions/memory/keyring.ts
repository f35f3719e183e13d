// The sealer of this process, made once from the key the kernel hands over (sdk/sealed.ts), on first
// use. The key's fingerprint is stored on first use, so a changed sealing key is refused with a clear
// error instead of failing on every record. The keyring is the extension's running state: setup makes
// it and every route and tool is handed it after ctx.
import { RoostError } from '../../protocol/errors.js';
import type { ExtensionContext } from '../../sdk/extension.js';
import { Sealer } from '../../sdk/sealed.js';
import { MemorySealer } from './sealing.js';

const FINGERPRINT = 'key_fingerprint';

export class Keyring {
  private ready: Promise<MemorySealer> | undefined;

  constructor(private readonly ctx: ExtensionContext) {}

  /** Opened lazily, so a wrong key answers each request (503) rather than stopping the extension's start. */
  sealer(): Promise<MemorySealer> {
    this.ready ??= open(this.ctx).catch((err) => {
      this.ready = undefined; // the operator may restore the key and the extension be restarted: ask again next time
      throw err;
    });
    return this.ready;
  }
}

async function open(ctx: ExtensionContext): Promise<MemorySealer> {
  const sealer = await Sealer.forExtension(ctx.host);
  const fingerprint = sealer.fingerprint();
  await ctx.db('memory_meta').insert({ name: FINGERPRINT, value: fingerprint }).onConflict('name').ignore();
  const stored = await ctx.db('memory_meta').where({ name: FINGERPRINT }).first();
  if (stored?.value !== fingerprint) {
    throw new RoostError('EXTENSION_UNAVAILABLE', "these memories were sealed with another sealing key: restore the previous ROOST_SEALING_KEY (or <dataDir>/sealing.key) and restart");
  }
  return new MemorySealer(sealer);
}
