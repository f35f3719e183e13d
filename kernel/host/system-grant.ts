// `system` was one grant for three powers (restart the server, read the kernel's metrics, change
// tenants); each is its own capability now. A grant of `system` stored before the split becomes the
// ones of the three the extension's manifest asks for, so an upgraded server gives each what it uses.
import type { Knex } from 'knex';

const SPLIT_FROM_SYSTEM = ['restart', 'metrics', 'tenants'];

export async function splitSystemGrant(db: Knex, extension: string, stored: Set<string>, asked: Record<string, boolean>): Promise<Set<string>> {
  if (!stored.has('system')) return stored;
  const given = SPLIT_FROM_SYSTEM.filter((capability) => asked[capability]);
  const now = new Date().toISOString();
  await db.transaction(async (trx) => {
    await trx('extension_grants').where({ extension, capability: 'system' }).delete();
    if (given.length > 0) {
      await trx('extension_grants').insert(given.map((capability) => ({ extension, capability, granted: true, updated_at: now }))).onConflict(['extension', 'capability']).merge(['granted', 'updated_at']);
    }
  });
  return new Set([...[...stored].filter((capability) => capability !== 'system'), ...given]);
}
