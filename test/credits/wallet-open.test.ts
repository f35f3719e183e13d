// Opening a wallet on its own, on a real SQLite file: a new wallet starts with one grant transaction and
// the grant as its balance, and an agent's creation delivered twice opens it once (the insert of the
// second fails on the wallet's key, and the wallet the first opened is what it answers).
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import knex, { type Knex } from 'knex';
import { migrations } from '../../extensions/credits/migrations.js';
import { Ledger } from '../../extensions/credits/ledger.js';

describe('credits: opening a wallet', () => {
  let dir: string;
  let db: Knex;
  before(async () => {
    dir = await mkdtemp(join(tmpdir(), 'roost-wallet-open-'));
    db = knex({ client: 'sqlite3', connection: { filename: join(dir, 'credits.sqlite') }, useNullAsDefault: true });
    for (const migration of migrations) await migration.up(db);
  });
  after(async () => {
    await db.destroy();
    await rm(dir, { recursive: true, force: true });
  });

  const agent = { id: 'a1', name: 'earner', wallet: `rw_${'1'.repeat(40)}` };
  const ledger = () => new Ledger(db, undefined as never);

  it('opens a new wallet with its grant once, however often the creation arrives', async () => {
    let asked = 0;
    const grant = async () => (asked++, 5_000_000);
    const first = await ledger().ensure('t1', agent, grant, { isNew: true });
    assert.equal(first.wallet.balance, 5_000_000);
    assert.deepEqual(first.change, { tenantId: 't1', agentId: 'a1', wallet: agent.wallet, balance: 5_000_000 });
    const again = await ledger().ensure('t1', agent, grant, { isNew: true });
    assert.equal(again.wallet.balance, 5_000_000);
    assert.equal(again.change, undefined, 'a second delivery announces no change');
    const seen = await ledger().ensure('t1', { ...agent, name: 'renamed' }, grant);
    assert.equal(seen.wallet.agentName, 'renamed');
    assert.equal(asked, 2, 'the grant is asked only while the wallet is thought new');
    const rows = await db('credit_transactions').where({ wallet: agent.wallet });
    assert.deepEqual(rows.map((r) => [r.kind, Number(r.micro_units), Number(r.balance_after), r.reference]), [['grant', 5_000_000, 5_000_000, 'initial-grant']]);
    assert.equal(Number((await db('wallets').where({ address: agent.wallet }).first()).balance), 5_000_000);
  });

  it('opens a wallet without a transaction when the grant is zero', async () => {
    const other = { id: 'a2', name: 'frugal', wallet: `rw_${'2'.repeat(40)}` };
    const { wallet } = await ledger().ensure('t1', other, async () => 0, { isNew: true });
    assert.equal(wallet.balance, 0);
    assert.equal((await db('credit_transactions').where({ wallet: other.wallet })).length, 0);
  });
});
