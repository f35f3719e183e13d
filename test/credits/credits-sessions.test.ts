// End to end with the real sessions extension and a fake Anthropic API: invoking an agent starts a
// session whose turns are reserved, priced and committed through credits.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startFakeAnthropic, type FakeAnthropic } from '../fakes/anthropic.js';
import { startTestServer, type TestServer } from '../helpers/server.js';

const MODEL = 'claude-sonnet-5-5';

describe('credits: agent turns run by the sessions extension are charged', () => {
  let anthropic: FakeAnthropic;
  let server: TestServer;
  before(async () => {
    anthropic = await startFakeAnthropic({ apiKey: 'test', script: [{ text: 'Reviewed: looks good.', usage: { input_tokens: 1_000, output_tokens: 200 } }] });
    server = await startTestServer({ env: { ANTHROPIC_API_KEY: 'test', ANTHROPIC_BASE_URL: anthropic.url } });
  });
  after(async () => {
    await server.cleanup();
    await anthropic.close();
  });

  const agent = async (name: string) => (await server.api('POST', '/api/agents', { body: { name, model: MODEL } })).body;
  async function until(sessionId: string, done: (s: any) => boolean): Promise<any> {
    const deadline = Date.now() + 20_000;
    let last: any;
    while (Date.now() < deadline) {
      last = (await server.api('GET', `/api/sessions/${sessionId}`)).body;
      if (done(last)) return last;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    throw new Error(`session ${sessionId} never got there: ${JSON.stringify(last)}`);
  }

  it('reserves before the turn, commits its token cost after it and streams the balance', async () => {
    const alice = await agent('alice');
    const bob = await agent('bob');
    const watcher = await server.ws();
    watcher.send({ type: 'subscribe', agentId: bob.id });
    await watcher.next((m) => m.type === 'subscribed');

    const invoked = await server.api('POST', `/api/agents/${bob.id}/invoke`, { body: { content: 'Review PR 12', fromAgentId: alice.id } });
    assert.equal(invoked.status, 201, invoked.text);
    const session = await until(invoked.body.sessionId, (s) => s.turns >= 1);
    assert.equal(session.source, 'agent');
    assert.equal(session.agentId, bob.id);

    // 1,000 input and 200 output tokens at the anthropic default (3,000 / 15,000 per 1k) = 6,000.
    const balance = (await server.api('GET', `/api/agents/${bob.id}/balance`)).body;
    assert.deepEqual({ balance: balance.balance, reserved: balance.reserved }, { balance: 5_000_000 - 6_000, reserved: 0 });
    const spending = (await server.api('GET', `/api/agents/${bob.id}/spending`)).body;
    assert.equal(spending.today.total, 6_000);
    const ledger = (await server.api('GET', `/api/wallets/${bob.wallet}/messages`)).body.messages;
    assert.deepEqual(ledger.filter((m: any) => m.kind === 'spend').map((m: any) => m.microUnits), [-6_000]);
    assert.equal(ledger.reduce((sum: number, m: any) => sum + m.microUnits, 0), 5_000_000 - 6_000, 'the balance is the sum of the ledger');
    await watcher.next((m) => m.type === 'agent_balance' && m.balance === 5_000_000 - 6_000);
    await watcher.close();

    const history = (await server.api('GET', `/api/agents/${bob.id}/messages`)).body.messages;
    assert.deepEqual(history.map((m: any) => [m.from, m.to, m.sessionId]), [[alice.id, bob.id, session.id]]);
  });

  it('lets a session\'s agent grant credits only with svc_grant_credits in mcp_tool_permissions', async () => {
    const receiver = await agent('receiver');
    const banker = (await server.api('POST', '/api/agents', { body: { name: 'banker', model: MODEL, permissionMode: 'full-auto', mcp_tool_permissions: ['svc_grant_credits'] } })).body;
    const clerk = (await server.api('POST', '/api/agents', { body: { name: 'clerk', model: MODEL, permissionMode: 'full-auto' } })).body;
    const grant = { name: 'svc_grant_credits', input: { wallet_address: receiver.wallet, microUnits: 4_321 } };
    for (const giver of [clerk, banker]) {
      anthropic.setScript([{ toolUses: [grant], usage: { input_tokens: 10, output_tokens: 10 } }, { text: 'Done.', usage: { input_tokens: 10, output_tokens: 10 } }]);
      const invoked = await server.api('POST', `/api/agents/${giver.id}/invoke`, { body: { content: 'Reward the receiver' } });
      assert.equal(invoked.status, 201, invoked.text);
      await until(invoked.body.sessionId, (s) => s.turns >= 2);
    }
    const ledger = (await server.api('GET', `/api/wallets/${receiver.wallet}/messages`)).body.messages;
    assert.deepEqual(ledger.filter((m: any) => m.reference === 'svc_grant_credits').map((m: any) => [m.microUnits, m.actor]), [[4_321, `agent:${banker.id}`]]);
    assert.equal((await server.api('GET', `/api/agents/${receiver.id}/balance`)).body.balance, 5_000_000 + 4_321);
  });

  it('refuses the invocation when the daily cap leaves nothing to reserve, and records nothing', async () => {
    const capped = await agent('capped');
    assert.equal((await server.api('PUT', `/api/agents/${capped.id}/spending-cap`, { body: { dailyLimit: 0 } })).status, 200);
    const calls = anthropic.requests.length;
    const invoked = await server.api('POST', `/api/agents/${capped.id}/invoke`, { body: { content: 'Do something' } });
    assert.equal(invoked.status, 409, invoked.text);
    assert.equal(invoked.body.code, 'DAILY_CAP_REACHED');
    assert.match(invoked.body.error, /daily cap of 0 microUnits/);
    assert.equal(anthropic.requests.length, calls, 'the model was never asked');
    assert.equal((await server.api('GET', `/api/agents/${capped.id}/messages`)).body.total, 0);
    const balance = (await server.api('GET', `/api/agents/${capped.id}/balance`)).body;
    assert.deepEqual({ balance: balance.balance, reserved: balance.reserved }, { balance: 5_000_000, reserved: 0 });
    assert.equal((await server.api('GET', `/api/agents/${capped.id}/spending`)).body.today.total, 0);
  });
});
