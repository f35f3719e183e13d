import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { TestServer } from '../helpers/server.js';
import { waitFor } from '../helpers/wait.js';
import { createAgent, registerTenant, startServer, type Tenant } from '../agents/support.js';

const INITIAL_GRANT = 5_000_000;

describe('credits: wallets, funding, grants and configuration', () => {
  let server: TestServer;
  let t: Tenant;
  let agent: any;
  before(async () => {
    server = await startServer();
    t = await registerTenant(server, 'ledger-org');
    agent = await createAgent(server, t.operator, { name: 'earner' });
  });
  after(() => server.cleanup());

  it('opens every new wallet with the initial grant and funds it', async () => {
    const balance = await server.api('GET', `/api/agents/${agent.id}/balance`, { key: t.viewer });
    assert.equal(balance.status, 200);
    assert.deepEqual(balance.body, { agentId: agent.id, wallet: agent.wallet, balance: INITIAL_GRANT, reserved: 0, unit: 'microUnits' });

    const funded = await server.api('POST', `/api/agents/${agent.id}/fund`, { key: t.operator, body: { microUnits: 250_000, reason: 'top-up' } });
    assert.equal(funded.status, 200, funded.text);
    assert.equal(funded.body.balance, INITIAL_GRANT + 250_000);
    assert.equal(funded.body.transaction.kind, 'fund');
    assert.equal(funded.body.transaction.microUnits, 250_000);
    assert.equal(funded.body.transaction.reason, 'top-up');
    assert.equal((await server.api('GET', `/api/agents/${agent.id}/balance`, { key: t.viewer })).body.balance, INITIAL_GRANT + 250_000);
  });

  it('refuses amounts that are not positive safe integers, and viewers', async () => {
    const before = (await server.api('GET', `/api/agents/${agent.id}/balance`, { key: t.viewer })).body.balance;
    const raws = ['{"microUnits": -5}', '{"microUnits": 0}', '{"microUnits": 1.5}', '{"microUnits": "100"}', '{"microUnits": null}', '{"microUnits": 9007199254740993}', '{"microUnits": 1e400}', '{}', '{"microUnits": 10, "bonus": 1}', '[]', '{"microUnits": '];
    for (const raw of raws) {
      const fund = await server.api('POST', `/api/agents/${agent.id}/fund`, { key: t.operator, raw });
      assert.equal(fund.status, 400, `fund ${raw}: ${fund.text}`);
      const grant = await server.api('POST', `/api/wallets/${agent.wallet}/credits`, { key: t.owner, raw });
      assert.equal(grant.status, 400, `grant ${raw}: ${grant.text}`);
    }
    const overflow = await server.api('POST', `/api/agents/${agent.id}/fund`, { key: t.operator, body: { microUnits: Number.MAX_SAFE_INTEGER } });
    assert.equal(overflow.status, 400);
    assert.match(overflow.body.error, /safe integer range/);
    assert.equal((await server.api('POST', `/api/agents/${agent.id}/fund`, { key: t.viewer, body: { microUnits: 5 } })).status, 403);
    assert.equal((await server.api('POST', '/api/agents/nobody/fund', { key: t.operator, body: { microUnits: 5 } })).status, 404);
    assert.equal((await server.api('GET', `/api/agents/${agent.id}/balance`, { key: t.viewer })).body.balance, before, 'nothing was lost or added');
  });

  it('lets only an owner grant credits to a wallet address', async () => {
    const byOperator = await server.api('POST', `/api/wallets/${agent.wallet}/credits`, { key: t.operator, body: { microUnits: 1000, reason: 'bonus' } });
    assert.equal(byOperator.status, 403);
    const granted = await server.api('POST', `/api/wallets/${agent.wallet}/credits`, { key: t.owner, body: { microUnits: 1000, reason: 'bonus' } });
    assert.equal(granted.status, 200, granted.text);
    assert.equal(granted.body.agentId, agent.id);
    assert.equal(granted.body.transaction.kind, 'grant');
    const unknown = await server.api('POST', '/api/wallets/rw_0123456789012345678901234567890123456789/credits', { key: t.owner, body: { microUnits: 1 } });
    assert.equal(unknown.status, 404);
    assert.equal((await server.api('POST', '/api/wallets/not-a-wallet/credits', { key: t.owner, body: { microUnits: 1 } })).status, 404);
  });

  it('pages an agent wallet\'s ledger newest first and summarises the agents\' wallets (kind=agent)', async () => {
    const second = await createAgent(server, t.operator, { name: 'saver' });
    const page1 = await server.api('GET', `/api/wallets/${agent.wallet}/messages?limit=2`, { key: t.viewer });
    assert.equal(page1.status, 200);
    assert.equal(page1.body.hasMore, true);
    assert.equal(page1.body.total, undefined, 'a full page costs no COUNT unless the total is asked for');
    assert.equal((await server.api('GET', `/api/wallets/${agent.wallet}/messages?limit=2&total=true`, { key: t.viewer })).body.total, 3);
    assert.deepEqual(page1.body.messages.map((m: any) => m.kind), ['grant', 'fund']);
    const page2 = await server.api('GET', `/api/wallets/${agent.wallet}/messages?limit=2&offset=2`, { key: t.viewer });
    assert.deepEqual(page2.body.messages.map((m: any) => [m.kind, m.microUnits, m.reference]), [['grant', INITIAL_GRANT, 'initial-grant']]);
    assert.equal(page2.body.total, 3, 'the last page knows the total without a COUNT');
    assert.equal(page2.body.hasMore, false);
    const newest = page1.body.messages[0];
    assert.equal(newest.balanceAfter, INITIAL_GRANT + 251_000);
    for (const query of ['limit=0', 'limit=abc', 'offset=-3', 'limit=1&limit=2']) {
      assert.equal((await server.api('GET', `/api/wallets/${agent.wallet}/messages?${query}`, { key: t.viewer })).status, 400, query);
    }
    assert.equal((await server.api('GET', '/api/wallets/rw_nothing/messages', { key: t.viewer })).status, 404);

    const summary = await server.api('GET', '/api/wallets/summary?kind=agent', { key: t.viewer });
    assert.equal(summary.status, 200);
    assert.equal(summary.body.total, 2);
    const row = summary.body.wallets.find((w: any) => w.address === agent.wallet);
    assert.deepEqual({ agentId: row.agentId, agentName: row.agentName, balance: row.balance, reserved: row.reserved, spentToday: row.spentToday }, { agentId: agent.id, agentName: 'earner', balance: INITIAL_GRANT + 251_000, reserved: 0, spentToday: 0 });
    const searched = await server.api('GET', '/api/wallets/summary?kind=agent&search=sav', { key: t.viewer });
    assert.deepEqual(searched.body.wallets.map((w: any) => w.address), [second.wallet]);
    const byAddress = await server.api('GET', `/api/wallets/summary?kind=agent&search=${agent.wallet.slice(0, 12)}`, { key: t.viewer });
    assert.deepEqual(byAddress.body.wallets.map((w: any) => w.agentId), [agent.id]);

    await server.api('PUT', `/api/agents/${second.id}`, { key: t.operator, body: { name: 'renamed-saver' } });
    await server.api('DELETE', `/api/agents/${second.id}`, { key: t.operator });
    const after = await server.api('GET', '/api/wallets/summary?kind=agent&search=renamed', { key: t.viewer });
    assert.equal(after.body.wallets.length, 1, 'the ledger of a deleted agent is kept');
    assert.equal(after.body.wallets[0].agentDeleted, true);
    assert.equal(after.body.wallets[0].balance, INITIAL_GRANT);
  });

  it('opens the wallets of agents created at once, each with one grant', async () => {
    const burst = await registerTenant(server, 'burst-org');
    const agents = await Promise.all(Array.from({ length: 8 }, (_, i) => createAgent(server, burst.operator, { name: `burst-${i}` })));
    const wallets = await waitFor('every new wallet opened by its creation event', async () => {
      const summary = await server.api('GET', '/api/wallets/summary?kind=agent&limit=50', { key: burst.viewer });
      return summary.body.wallets?.length === agents.length ? summary.body.wallets : undefined;
    });
    assert.deepEqual(wallets.map((w: any) => [w.agentId, w.balance]).sort(), agents.map((a) => [a.id, INITIAL_GRANT]).sort());
    for (const a of agents) {
      const ledger = await server.api('GET', `/api/wallets/${a.wallet}/messages`, { key: burst.viewer });
      assert.deepEqual(ledger.body.messages.map((m: any) => [m.kind, m.microUnits]), [['grant', INITIAL_GRANT]], a.name);
    }
  });

  it('reads and updates the credit configuration (owner only), validating every field', async () => {
    const config = await server.api('GET', '/api/settings/credits', { key: t.viewer });
    assert.equal(config.status, 200);
    assert.equal(config.body.enabled, true);
    assert.equal(config.body.initialGrant, INITIAL_GRANT);
    assert.equal(config.body.reservePerTurn, 100_000);
    assert.deepEqual(config.body.prices.ollama, { inputPer1k: 0, outputPer1k: 0 });

    assert.equal((await server.api('PUT', '/api/settings/credits', { key: t.operator, body: { initialGrant: 7 } })).status, 403);
    const updated = await server.api('PUT', '/api/settings/credits', { key: t.owner, body: { initialGrant: 42, prices: { 'anthropic/claude-haiku-4-5': { inputPer1k: 800, outputPer1k: 4000 } } } });
    assert.equal(updated.status, 200, updated.text);
    assert.equal(updated.body.initialGrant, 42);
    assert.equal(updated.body.reservePerTurn, 100_000, 'fields not given keep their value');
    assert.deepEqual(Object.keys(updated.body.prices), ['anthropic/claude-haiku-4-5']);
    const fresh = await createAgent(server, t.operator, { name: 'newcomer' });
    assert.equal((await server.api('GET', `/api/agents/${fresh.id}/balance`, { key: t.viewer })).body.balance, 42);

    for (const body of [{}, { enabled: 'yes' }, { initialGrant: -1 }, { initialGrant: 1.5 }, { reservePerTurn: 0 }, { defaultPrice: { inputPer1k: 1 } }, { prices: { 'Bad Key': { inputPer1k: 1, outputPer1k: 1 } } }, { surprise: true }]) {
      const res = await server.api('PUT', '/api/settings/credits', { key: t.owner, body });
      assert.equal(res.status, 400, JSON.stringify(body));
      assert.equal(res.body.code, 'VALIDATION_ERROR');
    }
    assert.equal((await server.api('GET', '/api/settings/credits', { key: t.viewer })).body.initialGrant, 42);
  });
});
