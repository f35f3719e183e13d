// One claimant of the claim race (claim.test.ts), in a process of its own like an instance: claims
// queued items a few at a time until none is left, and records each run.
import { claim } from '../../lib/claim.js';
import type { StorageInfo } from '../../protocol/messages.js';
import { openDatabase } from '../../lib/storage.js';

const [storageJson, worker] = process.argv.slice(2) as [string, string];
const db = openDatabase(JSON.parse(storageJson) as StorageInfo);
try {
  for (;;) {
    const items = await claim<{ id: number }>(db, { table: 'queue', where: { state: 'queued' }, set: { state: 'running', claimed_by: worker }, orderBy: 'id', limit: 3 });
    if (items.length === 0) break;
    for (const item of items) {
      await db('runs').insert({ item_id: item.id, worker });
      await db('queue').where({ id: item.id }).update({ state: 'done' });
    }
  }
} finally {
  await db.destroy();
}
