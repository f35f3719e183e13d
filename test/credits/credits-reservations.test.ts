import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { TestServer } from '../helpers/server.js';
import { callAs, createAgent, registerTenant, startServer, type Tenant } from '../agents/support.js';

const today = () => new Date().toISOString().slice(0, 10);

describe('credits: reservations around turns, daily spending and caps', () => {
  let server: TestServer;
  let t: Tenant;
  let other: Tenant;
  before(async () => {
    server = await startServer();
    t = await registerTenant(server, 'turns-org');
    other = await registerTenant(server, 'other-turns-org');
    const set = await server.api('PUT', '/api/settings/credits', { key: t.owner, body: { initialGrant: 0 } });
    assert.equal(set.status, 200);
  });
  after(() => server.cleanup());

  const reserve = (body: unknown, key = t.operator) => callAs(server, key, 'POST', '/api/credits/reservations', body);
  const balanceOf = async (agentId: string) => (await server.api('GET', `/api/agents/${agentId}/balance`, { key: t.viewer })).body;

  it('keeps the reservation routes internal', async () => {
    const res = await server.api('POST', '/api/credits/reservations', { key: t.owner, body: { sessionId: 's', microUnits: 1 } });
    assert.equal(res.status, 404);
    assert.equal(res.body.code, 'ROUTE_NOT_FOUND');
  });

  it('funds, reserves, commits and reports daily spending', async () => {
    const agent = await createAgent(server, t.operator, { name: 'worker', model: 'claude-haiku-4-5' });
    assert.equal((await balanceOf(agent.id)).balance, 0);
    await server.api('POST', `/api/agents/${agent.id}/fund`, { key: t.operator, body: { microUnits: 1_000_000 } });

    const held = await reserve({ agentId: agent.id, sessionId: 'session-1' });
    assert.equal(held.status, 201, JSON.stringify(held.body));
    assert.equal(held.body.enforced, true);
    assert.equal(held.body.reservation.microUnits, 100_000, 'the default reservation per turn');
    assert.equal(held.body.reservation.state, 'held');
    assert.equal(held.body.balance, 900_000);
    assert.deepEqual(await balanceOf(agent.id), { agentId: agent.id, wallet: agent.wallet, balance: 900_000, reserved: 100_000, unit: 'microUnits' });

    // 10,000 input and 2,000 output tokens at the anthropic default (3,000 / 15,000 per 1k) = 60,000.
    const committed = await callAs(server, t.operator, 'POST', `/api/credits/reservations/${held.body.reservationId}/commit`, { inputTokens: 10_000, outputTokens: 2_000 });
    assert.equal(committed.status, 200, JSON.stringify(committed.body));
    assert.equal(committed.body.charged, 60_000);
    assert.equal(committed.body.balance, 940_000);
    assert.equal(committed.body.reservation.state, 'committed');
    assert.equal(committed.body.reservation.model, 'claude-haiku-4-5');

    const explicit = await reserve({ wallet: agent.wallet, sessionId: 'session-1', microUnits: 50_000 });
    assert.equal(explicit.status, 201);
    const paid = await callAs(server, t.operator, 'POST', `/api/credits/reservations/${explicit.body.reservationId}/commit`, { microUnits: 12_345 });
    assert.equal(paid.body.charged, 12_345);

    const spending = await server.api('GET', `/api/agents/${agent.id}/spending`, { key: t.viewer });
    assert.equal(spending.status, 200);
    assert.deepEqual(spending.body.daily, [{ date: today(), total: 72_345 }]);
    assert.deepEqual(spending.body.today, { date: today(), total: 72_345 });
    assert.equal(spending.body.cap, null);
    assert.deepEqual(await balanceOf(agent.id), { agentId: agent.id, wallet: agent.wallet, balance: 1_000_000 - 72_345, reserved: 0, unit: 'microUnits' });

    const ledger = await server.api('GET', `/api/wallets/${agent.wallet}/messages?limit=10`, { key: t.viewer });
    assert.deepEqual(ledger.body.messages.map((m: any) => [m.kind, m.microUnits]).reverse(), [
      ['fund', 1_000_000], ['reserve', -100_000], ['commit', 100_000], ['spend', -60_000], ['reserve', -50_000], ['commit', 50_000], ['spend', -12_345],
    ]);
    const sum = ledger.body.messages.reduce((total: number, m: any) => total + m.microUnits, 0);
    assert.equal(sum, 1_000_000 - 72_345, 'the balance is the sum of the ledger');

    const again = await callAs(server, t.operator, 'POST', `/api/credits/reservations/${held.body.reservationId}/commit`, { microUnits: 1 });
    assert.equal(again.status, 409);
    const releaseCommitted = await callAs(server, t.operator, 'POST', `/api/credits/reservations/${held.body.reservationId}/release`);
    assert.equal(releaseCommitted.status, 409);
  });

  it('releases a hold on request and when it expires', async () => {
    const agent = await createAgent(server, t.operator, { name: 'releaser' });
    await server.api('POST', `/api/agents/${agent.id}/fund`, { key: t.operator, body: { microUnits: 300_000 } });
    const held = await reserve({ agentId: agent.id, sessionId: 's-2', microUnits: 200_000 });
    assert.equal((await balanceOf(agent.id)).balance, 100_000);
    const released = await callAs(server, t.operator, 'POST', `/api/credits/reservations/${held.body.reservationId}/release`);
    assert.equal(released.status, 200);
    assert.equal(released.body.reservation.state, 'released');
    assert.equal(released.body.balance, 300_000);
    const twice = await callAs(server, t.operator, 'POST', `/api/credits/reservations/${held.body.reservationId}/release`);
    assert.equal(twice.status, 200);
    assert.equal((await balanceOf(agent.id)).balance, 300_000, 'releasing twice returns the hold once');
    assert.equal((await callAs(server, t.operator, 'POST', `/api/credits/reservations/${held.body.reservationId}/commit`, { microUnits: 1 })).status, 409);

    const abandoned = await reserve({ agentId: agent.id, sessionId: 's-3', microUnits: 250_000, ttlSeconds: 1 });
    assert.equal(abandoned.status, 201);
    assert.equal((await balanceOf(agent.id)).reserved, 250_000);
    await new Promise((resolve) => setTimeout(resolve, 1_200));
    assert.deepEqual(await balanceOf(agent.id), { agentId: agent.id, wallet: agent.wallet, balance: 300_000, reserved: 0, unit: 'microUnits' });
    const late = await callAs(server, t.operator, 'POST', `/api/credits/reservations/${abandoned.body.reservationId}/commit`, { microUnits: 1_000 });
    assert.equal(late.status, 200, 'a late commit still records what the turn cost');
    assert.equal(late.body.balance, 299_000);
  });

  it('refuses a reservation when the balance or the daily cap is exhausted', async () => {
    const agent = await createAgent(server, t.operator, { name: 'capped' });
    await server.api('POST', `/api/agents/${agent.id}/fund`, { key: t.operator, body: { microUnits: 150_000 } });
    const broke = await reserve({ agentId: agent.id, sessionId: 's-4', microUnits: 150_001 });
    assert.equal(broke.status, 409);
    assert.equal(broke.body.code, 'INSUFFICIENT_CREDITS');
    assert.match(broke.body.error, /150000 microUnits available/);

    const cap = await server.api('PUT', `/api/agents/${agent.id}/spending-cap`, { key: t.operator, body: { dailyLimit: 100_000 } });
    assert.equal(cap.status, 200);
    assert.equal(cap.body.dailyLimit, 100_000);
    const first = await reserve({ agentId: agent.id, sessionId: 's-4', microUnits: 60_000 });
    assert.equal(first.status, 201);
    const overCap = await reserve({ agentId: agent.id, sessionId: 's-4', microUnits: 60_000 });
    assert.equal(overCap.status, 409);
    assert.equal(overCap.body.code, 'DAILY_CAP_REACHED');
    await callAs(server, t.operator, 'POST', `/api/credits/reservations/${first.body.reservationId}/commit`, { microUnits: 90_000 });
    const spending = await server.api('GET', `/api/agents/${agent.id}/spending`, { key: t.viewer });
    assert.deepEqual(spending.body.cap, { dailyLimit: 100_000, remaining: 10_000 });
    assert.equal((await reserve({ agentId: agent.id, sessionId: 's-4', microUnits: 10_001 })).body.code, 'DAILY_CAP_REACHED');
    assert.equal((await reserve({ agentId: agent.id, sessionId: 's-4', microUnits: 10_000 })).status, 201);

    assert.equal((await server.api('DELETE', `/api/agents/${agent.id}/spending-cap`, { key: t.operator })).status, 204);
    assert.equal((await server.api('DELETE', `/api/agents/${agent.id}/spending-cap`, { key: t.operator })).status, 404);
    assert.equal((await server.api('GET', `/api/agents/${agent.id}/spending`, { key: t.viewer })).body.cap, null);
    assert.equal((await reserve({ agentId: agent.id, sessionId: 's-4', microUnits: 40_000 })).status, 201, 'no cap: only the balance limits');
  });

  it('charges nothing while credits are disabled', async () => {
    const tenant = await registerTenant(server, 'free-org');
    await server.api('PUT', '/api/settings/credits', { key: tenant.owner, body: { enabled: false, initialGrant: 0 } });
    const agent = await createAgent(server, tenant.operator, { name: 'free' });
    const held = await callAs(server, tenant.operator, 'POST', '/api/credits/reservations', { agentId: agent.id, sessionId: 's' });
    assert.equal(held.status, 201);
    assert.equal(held.body.enforced, false);
    const done = await callAs(server, tenant.operator, 'POST', `/api/credits/reservations/${held.body.reservationId}/commit`, { inputTokens: 5_000, outputTokens: 5_000 });
    assert.equal(done.body.charged, 0);
    assert.equal((await server.api('GET', `/api/agents/${agent.id}/balance`, { key: tenant.viewer })).body.balance, 0);
  });

  it('makes several reservations in one call, each made or refused on its own, in order', async () => {
    const rich = await createAgent(server, t.operator, { name: 'batch-rich' });
    const poor = await createAgent(server, t.operator, { name: 'batch-poor' });
    await server.api('POST', `/api/agents/${rich.id}/fund`, { key: t.operator, body: { microUnits: 300_000 } });
    const batch = (body: unknown, key = t.operator) => callAs(server, key, 'POST', '/api/credits/reservations/batch', body);
    const res = await batch({ reservations: [
      { agentId: rich.id, sessionId: 'council-launch-1' },
      { agentId: poor.id, sessionId: 'council-launch-1' },
      { agentId: rich.id, sessionId: 'council-launch-1', microUnits: 'lots' },
      { agentId: 'ghost', sessionId: 'council-launch-1' },
      { wallet: rich.wallet, sessionId: 'council-launch-1', microUnits: 50_000 },
    ] });
    assert.equal(res.status, 200, JSON.stringify(res.body));
    const [first, refused, malformed, unknown, second] = res.body.reservations;
    assert.equal(first.reservation.state, 'held');
    assert.equal(first.reservation.microUnits, 100_000);
    assert.deepEqual([refused.status, refused.code], [409, 'INSUFFICIENT_CREDITS']);
    assert.deepEqual([malformed.status, malformed.code], [400, 'VALIDATION_ERROR']);
    assert.match(malformed.error, /body\.reservations\[2\]\.microUnits/);
    assert.deepEqual([unknown.status, unknown.code], [404, 'NOT_FOUND']);
    assert.equal(second.reservation.microUnits, 50_000);
    assert.equal((await balanceOf(rich.id)).reserved, 150_000, 'the two good ones hold, nothing else');
    assert.equal((await balanceOf(poor.id)).reserved, 0);

    for (const body of [{}, { reservations: [] }, { reservations: Array(51).fill({ agentId: rich.id, sessionId: 's' }) }, { reservations: 'all' }]) {
      assert.equal((await batch(body)).status, 400, JSON.stringify(body).slice(0, 80));
    }
    const foreign = await batch({ reservations: [{ agentId: rich.id, sessionId: 's' }] }, other.operator);
    assert.equal(foreign.body.reservations[0].status, 404, 'another tenant\'s agent is unknown');
    const outside = await server.api('POST', '/api/credits/reservations/batch', { key: t.owner, body: { reservations: [{ agentId: rich.id, sessionId: 's' }] } });
    assert.equal(outside.status, 404, 'internal: reachable only through call');
  });

  it('refuses bad input, unknown ids and other tenants\' agents and reservations', async () => {
    const agent = await createAgent(server, t.operator, { name: 'strict' });
    await server.api('POST', `/api/agents/${agent.id}/fund`, { key: t.operator, body: { microUnits: 500_000 } });
    for (const body of [{}, { agentId: agent.id }, { sessionId: 's' }, { agentId: agent.id, sessionId: 's', microUnits: -1 }, { agentId: agent.id, sessionId: 's', microUnits: 2.5 }, { agentId: agent.id, sessionId: 's', microUnits: '5' }, { agentId: agent.id, sessionId: 's', ttlSeconds: 0 }, { agentId: agent.id, sessionId: 's', extra: 1 }]) {
      const res = await reserve(body);
      assert.equal(res.status, 400, JSON.stringify(body));
      assert.equal(res.body.code, 'VALIDATION_ERROR');
    }
    const otherAgent = await createAgent(server, t.operator, { name: 'mismatch' });
    assert.equal((await reserve({ agentId: agent.id, wallet: otherAgent.wallet, sessionId: 's' })).status, 400);
    assert.equal((await reserve({ agentId: 'ghost', sessionId: 's' })).status, 404);
    assert.equal((await reserve({ wallet: 'rw_ghost', sessionId: 's' })).status, 404);
    assert.equal((await reserve({ agentId: agent.id, sessionId: 's' }, other.operator)).status, 404);
    assert.equal((await reserve({ wallet: agent.wallet, sessionId: 's' }, other.operator)).status, 404);

    const held = await reserve({ agentId: agent.id, sessionId: 's', microUnits: 1_000 });
    for (const body of [{}, { microUnits: -1 }, { inputTokens: 1.5 }, { outputTokens: 'many' }, { microUnits: 1, bogus: true }]) {
      const res = await callAs(server, t.operator, 'POST', `/api/credits/reservations/${held.body.reservationId}/commit`, body);
      assert.equal(res.status, 400, JSON.stringify(body));
    }
    assert.equal((await callAs(server, other.operator, 'POST', `/api/credits/reservations/${held.body.reservationId}/commit`, { microUnits: 1 })).status, 404);
    assert.equal((await callAs(server, other.operator, 'POST', `/api/credits/reservations/${held.body.reservationId}/release`)).status, 404);
    assert.equal((await callAs(server, t.operator, 'POST', '/api/credits/reservations/nope/release')).status, 404);
    assert.equal((await balanceOf(agent.id)).reserved, 1_000, 'the other tenant touched nothing');

    for (const body of [{}, { dailyLimit: -1 }, { dailyLimit: 1.5 }, { dailyLimit: '10' }, { dailyLimit: 9007199254740993 }]) {
      assert.equal((await server.api('PUT', `/api/agents/${agent.id}/spending-cap`, { key: t.operator, body })).status, 400, JSON.stringify(body));
    }
    assert.equal((await server.api('PUT', `/api/agents/${agent.id}/spending-cap`, { key: t.viewer, body: { dailyLimit: 5 } })).status, 403);
    assert.equal((await server.api('PUT', `/api/agents/${agent.id}/spending-cap`, { key: other.owner, body: { dailyLimit: 5 } })).status, 404);
    assert.equal((await server.api('GET', `/api/agents/${agent.id}/spending`, { key: other.owner })).status, 404);
    assert.equal((await server.api('GET', `/api/agents/${agent.id}/spending?days=0`, { key: t.viewer })).status, 400);
    assert.equal((await server.api('GET', `/api/agents/${agent.id}/spending?days=x`, { key: t.viewer })).status, 400);
  });
});
