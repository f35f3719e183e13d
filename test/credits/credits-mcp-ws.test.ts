import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { TestServer } from '../helpers/server.js';
import { agentToken, callTool, createAgent, mcpClient, registerTenant, startServer, type Tenant } from '../agents/support.js';

describe('credits: MCP tools, WebSocket rewards and tenant isolation', () => {
  let server: TestServer;
  let a: Tenant;
  let b: Tenant;
  let agentA: any;
  let agentB: any;
  before(async () => {
    server = await startServer();
    a = await registerTenant(server, 'mcp-org-a');
    b = await registerTenant(server, 'mcp-org-b');
    agentA = await createAgent(server, a.operator, { name: 'a-agent' });
    agentB = await createAgent(server, b.operator, { name: 'b-agent' });
  });
  after(() => server.cleanup());

  const balance = async (key: string, agentId: string) => (await server.api('GET', `/api/agents/${agentId}/balance`, { key })).body.balance;

  it('svc_check_credits reads a wallet of the caller\'s tenant only', async () => {
    const client = await mcpClient(server, a.operator);
    try {
      const checked = await callTool(client, 'svc_check_credits', { wallet_address: agentA.wallet });
      assert.equal(checked.isError, false, checked.text);
      assert.deepEqual(checked.value, { wallet: agentA.wallet, agentId: agentA.id, balance: 5_000_000, reserved: 0, unit: 'microUnits' });
      const foreign = await callTool(client, 'svc_check_credits', { wallet_address: agentB.wallet });
      assert.equal(foreign.isError, true);
      assert.match(foreign.text, /not found/);
      const missing = await callTool(client, 'svc_check_credits', {});
      assert.equal(missing.isError, true);
      assert.match(missing.text, /wallet_address is required/);
    } finally {
      await client.close();
    }
  });

  it('svc_grant_credits needs a grant in mcp_tool_permissions and grants at most 1,000,000 credits per call', async () => {
    const plain = await createAgent(server, a.owner, { name: 'plain' });
    const plainClient = await mcpClient(server, await agentToken(server, a.operator, plain.id));
    const keyClient = await mcpClient(server, a.owner);
    try {
      const refused = await callTool(plainClient, 'svc_grant_credits', { wallet_address: agentA.wallet, microUnits: 10 });
      assert.equal(refused.isError, true);
      assert.match(refused.text, /privileged/);
      const byKey = await callTool(keyClient, 'svc_grant_credits', { wallet_address: agentA.wallet, microUnits: 10 });
      assert.equal(byKey.isError, true, 'an API key is not an agent with a grant');
      const config = await callTool(plainClient, 'svc_credit_config', { action: 'get' });
      assert.equal(config.isError, true);
    } finally {
      await plainClient.close();
      await keyClient.close();
    }
    assert.equal(await balance(a.viewer, agentA.id), 5_000_000);

    const banker = await createAgent(server, a.owner, { name: 'banker', mcp_tool_permissions: ['svc_grant_credits', 'svc_credit_config'] });
    const client = await mcpClient(server, await agentToken(server, a.operator, banker.id));
    try {
      const granted = await callTool(client, 'svc_grant_credits', { wallet_address: agentA.wallet, microUnits: 1_000_000, reason: 'good work' });
      assert.equal(granted.isError, false, granted.text);
      assert.equal(granted.value.balance, 6_000_000);
      const inCredits = await callTool(client, 'svc_grant_credits', { wallet_address: agentA.wallet, credits: 2.5 });
      assert.equal(inCredits.isError, false, inCredits.text);
      assert.equal(inCredits.value.granted, 2_500_000);
      assert.equal(inCredits.value.grantedCredits, 2.5);
      assert.equal(inCredits.value.balance, 8_500_000);
      for (const credits of [1_000_001, 0, -5, 0.0000001, '100']) {
        const res = await callTool(client, 'svc_grant_credits', { wallet_address: agentA.wallet, credits });
        assert.equal(res.isError, true, String(credits));
        assert.match(res.text, /credits/);
      }
      for (const microUnits of [1_000_000_000_001, 0, -5, 2.5, '100']) {
        const res = await callTool(client, 'svc_grant_credits', { wallet_address: agentA.wallet, microUnits });
        assert.equal(res.isError, true, String(microUnits));
        assert.match(res.text, /microUnits/);
      }
      const both = await callTool(client, 'svc_grant_credits', { wallet_address: agentA.wallet, credits: 1, microUnits: 1 });
      assert.equal(both.isError, true, 'one amount, not two');
      const foreign = await callTool(client, 'svc_grant_credits', { wallet_address: agentB.wallet, microUnits: 5 });
      assert.equal(foreign.isError, true);

      const got = await callTool(client, 'svc_credit_config', { action: 'get' });
      assert.equal(got.value.reservePerTurn, 100_000);
      const set = await callTool(client, 'svc_credit_config', { action: 'set', config: { reservePerTurn: 20_000 } });
      assert.equal(set.isError, false, set.text);
      assert.equal(set.value.reservePerTurn, 20_000);
      assert.equal((await server.api('GET', '/api/settings/credits', { key: a.viewer })).body.reservePerTurn, 20_000);
      assert.equal((await server.api('GET', '/api/settings/credits', { key: b.viewer })).body.reservePerTurn, 100_000, 'tenant B keeps its own configuration');
      const badSet = await callTool(client, 'svc_credit_config', { action: 'set', config: { reservePerTurn: -1 } });
      assert.equal(badSet.isError, true);
      assert.match(badSet.text, /reservePerTurn/);
      assert.equal((await callTool(client, 'svc_credit_config', { action: 'set' })).isError, true);
      assert.equal((await callTool(client, 'svc_credit_config', { action: 'delete' })).isError, true);
    } finally {
      await client.close();
    }
    assert.equal(await balance(a.viewer, agentA.id), 8_500_000);
    const ledger = await server.api('GET', `/api/wallets/${agentA.wallet}/messages`, { key: a.viewer });
    assert.equal(ledger.body.messages[0].actor, `agent:${banker.id}`);
  });

  it('agent_reward over the WebSocket credits the agent and tells its subscribers', async () => {
    const watcher = await server.ws({ key: a.viewer });
    const sender = await server.ws({ key: a.operator });
    try {
      watcher.send({ type: 'subscribe', agentId: agentA.id });
      await watcher.next((m) => m.type === 'subscribed');
      const start = await balance(a.viewer, agentA.id);
      sender.send({ type: 'agent_reward', agentId: agentA.id, microUnits: 777 });
      const ack = await sender.next((m) => m.type === 'agent_rewarded');
      assert.equal(ack.balance, start + 777);
      const event = await watcher.next((m) => m.type === 'agent_balance');
      assert.deepEqual(event, { type: 'agent_balance', agentId: agentA.id, wallet: agentA.wallet, balance: start + 777 });

      for (const microUnits of [-1, 0, 1.5, '7', 9007199254740993, null]) {
        sender.send({ type: 'agent_reward', agentId: agentA.id, microUnits });
        const error = await sender.next((m) => m.type === 'error');
        assert.match(error.message, /microUnits/, String(microUnits));
      }
      sender.send({ type: 'agent_reward', agentId: agentB.id, microUnits: 5 });
      assert.match((await sender.next((m) => m.type === 'error')).message, /not found/);
      assert.equal(await balance(a.viewer, agentA.id), start + 777);
      assert.equal(await balance(b.viewer, agentB.id), 5_000_000);
      assert.ok(!watcher.messages.some((m) => m.type === 'agent_balance'), 'no further balance events');

      watcher.send({ type: 'agent_reward', agentId: agentA.id, microUnits: 5 });
      assert.equal((await watcher.next((m) => m.type === 'error')).code, 'FORBIDDEN');
      watcher.send({ type: 'subscribe', agentId: agentB.id });
      assert.match((await watcher.next((m) => m.type === 'error')).message, /not found/);
    } finally {
      await watcher.close();
      await sender.close();
    }
  });

  it('keeps wallets and balances apart over REST', async () => {
    for (const [method, path, body] of [
      ['GET', `/api/agents/${agentA.id}/balance`],
      ['POST', `/api/agents/${agentA.id}/fund`, { microUnits: 5 }],
      ['GET', `/api/agents/${agentA.id}/spending`],
      ['DELETE', `/api/agents/${agentA.id}/spending-cap`],
      ['GET', `/api/wallets/${agentA.wallet}/messages`],
      ['POST', `/api/wallets/${agentA.wallet}/credits`, { microUnits: 5 }],
    ] as Array<[string, string, unknown?]>) {
      const res = await server.api(method, path, { key: b.owner, body });
      assert.equal(res.status, 404, `${method} ${path}: ${res.text}`);
    }
    const summary = await server.api('GET', '/api/wallets/summary?kind=agent', { key: b.viewer });
    assert.deepEqual(summary.body.wallets.map((w: any) => w.address), [agentB.wallet]);
    assert.equal(await balance(b.viewer, agentB.id), 5_000_000);
  });
});
