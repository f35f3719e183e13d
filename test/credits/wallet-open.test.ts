// Opening wallets, on a real SQLite file: a new wallet starts with one grant transaction and the grant
// as its balance; new agents' wallets arriving together are written in one transaction, each with its
// tenant's grant, and a creation delivered twice (its wallet there already) opens nothing a second time.
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { Knex } from 'knex';
import { openDatabase } from '../../lib/storage.js';
import { migrations } from '../../extensions/credits/migrations.js';
import { Ledger } from '../../extensions/credits/ledger.js';
import { WalletOpenings } from '../../extensions/credits/wallet-openings.js';
import type { ExtensionContext } from '../../sdk/extension.js';
import { openReader, type SqlReader } from '../../sdk/sql.js';

describe('credits: opening wallets', () => {
  let dir: string;
  let db: Knex;
  let sql: SqlReader;
  before(async () => {
    dir = await mkdtemp(join(tmpdir(), 'roost-wallet-open-'));
    const connection = { filename: join(dir, 'credits.sqlite') };
    db = openDatabase({ client: 'sqlite3', connection });
    for (const migration of migrations) await migration.up(db);
    sql = openReader({ client: 'sqlite3', connection } as never);
  });
  after(async () => {
    await sql.close();
    await db.destroy();
    await rm(dir, { recursive: true, force: true });
  });

  const wallet = (digit: number) => `rw_${String(digit).repeat(40)}`;
  const ledger = () => new Ledger(db, sql);
  const grants = async (address: string) => (await db('credit_transactions').where({ wallet: address, kind: 'grant' })).map((r) => Number(r.micro_units));

  it('opens a new wallet with its grant once, however often it is asked', async () => {
    const agent = { id: 'a1', name: 'earner', wallet: wallet(1) };
    let asked = 0;
    const grant = async () => (asked++, 5_000_000);
    const first = await ledger().ensure('t1', agent, grant);
    assert.equal(first.wallet.balance, 5_000_000);
    assert.deepEqual(first.change, { tenantId: 't1', agentId: 'a1', wallet: agent.wallet, balance: 5_000_000, createdAt: first.wallet.createdAt });
    const again = await ledger().ensure('t1', { ...agent, name: 'renamed' }, grant);
    assert.equal(again.wallet.balance, 5_000_000);
    assert.equal(again.wallet.agentName, 'renamed');
    assert.equal(again.change, undefined, 'a second opening announces no change');
    assert.equal(asked, 1, 'the grant is asked only for a new wallet');
    const rows = await db('credit_transactions').where({ wallet: agent.wallet });
    assert.deepEqual(rows.map((r) => [r.kind, Number(r.micro_units), Number(r.balance_after), r.reference]), [['grant', 5_000_000, 5_000_000, 'initial-grant']]);
    assert.equal(Number((await db('wallets').where({ address: agent.wallet }).first()).balance), 5_000_000);
  });

  it('opens a wallet without a transaction when the grant is zero', async () => {
    const other = { id: 'a2', name: 'frugal', wallet: wallet(2) };
    const { wallet: opened } = await ledger().ensure('t1', other, async () => 0);
    assert.equal(opened.balance, 0);
    assert.equal((await db('credit_transactions').where({ wallet: other.wallet })).length, 0);
  });

  it('writes the wallets of agents created together in one transaction, each with its tenant\'s grant', async () => {
    await db('credit_config').insert({ tenant_id: 't2', config: JSON.stringify({ initialGrant: 7 }), updated_at: new Date().toISOString() });
    const { openings, announced, transactions } = watched();
    const agents = [3, 4, 5].map((n) => ({ tenantId: n === 5 ? 't2' : 't1', agent: { id: `a${n}`, name: `agent ${n}`, wallet: wallet(n) } }));
    await Promise.all(agents.map(({ tenantId, agent }) => openings.open(tenantId, agent)));
    assert.equal(transactions(), 1, 'one transaction for the three wallets');
    assert.deepEqual(await grants(wallet(3)), [5_000_000]);
    assert.deepEqual(await grants(wallet(4)), [5_000_000]);
    assert.deepEqual(await grants(wallet(5)), [7]);
    assert.deepEqual(announced.map((e) => [e.tenantId, e.payload.wallet, e.payload.balance]).sort(), [['t1', wallet(3), 5_000_000], ['t1', wallet(4), 5_000_000], ['t2', wallet(5), 7]]);
  });

  it('opens nothing twice when a creation is delivered again beside new ones', async () => {
    const { openings, announced } = watched();
    const repeated = { id: 'a3', name: 'agent 3', wallet: wallet(3) };
    const fresh = { id: 'a6', name: 'agent 6', wallet: wallet(6) };
    await Promise.all([openings.open('t1', repeated), openings.open('t1', fresh), openings.open('t1', fresh)]);
    await openings.idle();
    assert.deepEqual(await grants(wallet(3)), [5_000_000], 'the wallet already there is not granted again');
    assert.deepEqual(await grants(wallet(6)), [5_000_000], 'a creation twice in one batch is granted once');
    assert.deepEqual(announced.map((e) => e.payload.wallet), [wallet(6)], 'only the new wallet is announced');
    assert.equal(Number((await db('wallets').where({ address: wallet(3) }).first()).balance), 5_000_000);
  });

  /** WalletOpenings on this database, with the host's emits recorded and the transactions counted. */
  function watched() {
    const announced: Array<{ tenantId: string; payload: { wallet: string; balance: number } }> = [];
    let begun = 0;
    const count = (query: { sql: string }) => { if (/^begin/i.test(query.sql)) begun++; };
    db.on('query', count);
    const host = { emit: (_topic: string, payload: never, tenantId: string) => announced.push({ tenantId, payload }), log: () => undefined };
    const openings = new WalletOpenings({ db, sql, host } as unknown as ExtensionContext);
    return { openings, announced, transactions: () => (db.off('query', count), begun) };
  }
});
