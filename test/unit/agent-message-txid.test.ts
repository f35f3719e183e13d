// Why an agent message has no txid, as the agents extension's store keeps it (real SQLite): messaging
// records chainchat's first answer ("queued") after asking it, and chainchat records what happens next
// (a retry's reason, the txid) from its poller, which may come first. A first answer never replaces what
// chainchat recorded meanwhile; before, a "queued" landing late hid a chain outage's retry reason.
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { Knex } from 'knex';
import { migrations } from '../../extensions/agents/migrations.js';
import { MessageStore } from '../../extensions/agents/messages.js';
import { migrate, openDatabase } from '../../lib/storage.js';
import { openReader } from '../../sdk/sql.js';
import type { StorageInfo } from '../../protocol/messages.js';

const TENANT = 'tenant-a';
const QUEUED = { txid: null, txidReason: 'queued to be sent on-chain', first: true };
const RETRYING = { txid: null, txidReason: 'queued: sending on-chain failed, retrying (algod 503)' };

describe('an agent message\'s txid reason', () => {
  let dir: string;
  let db: Knex;
  let store: MessageStore;
  const message = () => store.record(TENANT, { from: 'agent-1', to: 'agent-2', content: 'hello', sessionId: null, thread: null });

  before(async () => {
    dir = await mkdtemp(join(tmpdir(), 'roost-message-txid-'));
    const storage: StorageInfo = { client: 'sqlite3', connection: { filename: join(dir, 'agents.sqlite') } };
    db = openDatabase(storage);
    await migrate(db, migrations);
    store = new MessageStore(db, openReader(storage));
  });
  after(async () => {
    await db.destroy();
    await rm(dir, { recursive: true, force: true });
  });

  it('takes the first answer while nobody was asked', async () => {
    const { id } = await message();
    assert.equal((await store.setTxid(TENANT, id, QUEUED))?.txidReason, QUEUED.txidReason);
  });

  it('keeps a retry\'s reason that chainchat recorded before the first answer landed', async () => {
    const { id } = await message();
    await store.setTxid(TENANT, id, RETRYING);
    assert.equal((await store.setTxid(TENANT, id, QUEUED))?.txidReason, RETRYING.txidReason);
  });

  it('keeps a txid that chainchat recorded before the first answer landed', async () => {
    const { id } = await message();
    await store.setTxid(TENANT, id, { txid: 'TX1', txidReason: null });
    const after = await store.setTxid(TENANT, id, QUEUED);
    assert.deepEqual([after?.txid, after?.txidReason], ['TX1', null]);
  });
});
