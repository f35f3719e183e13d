import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { agentToken, callAs, callTool, createAgent, mcpClient, registerTenant, type Tenant } from '../agents/support.js';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { waitFor } from '../helpers/wait.js';
import { Participant, plaintextOnChain, setUpChainchat, startFakes, type Fakes, type Key } from './support.js';

describe('chainchat: memories on-chain and contacts, through the MCP SDK client', () => {
  let fakes: Fakes;
  let server: TestServer;
  let a: Tenant;
  let b: Tenant;
  let agentId: string;
  let mcp: Client;
  let mcpB: Client;
  let roost: string;
  let roostX: Key;

  const memories = async () => (await server.api('GET', `/api/agents/${agentId}/memories`, { key: a.owner })).body.memories as Array<{ key: string; content: string; txid: string | null }>;

  before(async () => {
    fakes = await startFakes();
    server = await startTestServer({ env: fakes.env });
    a = await registerTenant(server, 'ccm-a');
    b = await registerTenant(server, 'ccm-b');
    agentId = (await createAgent(server, a.owner, { name: 'keeper', model: 'claude-sonnet-5-5' })).id;
    const agentB = (await createAgent(server, b.owner, { name: 'other', model: 'claude-sonnet-5-5' })).id;
    mcp = await mcpClient(server, await agentToken(server, a.owner, agentId));
    mcpB = await mcpClient(server, await agentToken(server, b.owner, agentB));
    const status = await setUpChainchat(server, a.owner);
    roost = status.address;
    roostX = { mode: 'X', roostX25519: Buffer.from(status.x25519PublicKey, 'base64url') };
    fakes.chain.fund(roost, 20_000_000);
  });
  after(async () => {
    await mcp?.close();
    await mcpB?.close();
    await server?.cleanup();
    await fakes?.close();
  });

  it('promotes a memory on-chain, fills its txid, reads it back and restores it after a local delete', async () => {
    const content = 'the launch code is tangerine-42';
    assert.equal((await callTool(mcp, 'svc_save_memory', { key: 'launch', content })).isError, false);
    const promoted = await callTool(mcp, 'svc_promote_memory', { key: 'launch' });
    assert.equal(promoted.isError, false, promoted.text);
    assert.match(promoted.value.txid, /^[A-Z2-7]{52}$/);
    assert.equal((await memories()).find((m) => m.key === 'launch')!.txid, promoted.value.txid);
    assert.ok(fakes.chain.transactions.some((t) => t.id === promoted.value.txid));
    assert.equal(plaintextOnChain(fakes.chain, 'tangerine'), false);
    const read = await callTool(mcp, 'svc_read_onchain_memories', {});
    assert.deepEqual(read.value.memories.map((m: any) => [m.key, m.content, m.txid]), [['launch', content, promoted.value.txid]]);
    // Another tenant's agent reads none of them.
    assert.deepEqual((await callTool(mcpB, 'svc_read_onchain_memories', {})).value.memories, []);
    assert.equal((await server.api('DELETE', `/api/agents/${agentId}/memories/launch`, { key: a.owner })).status, 204);
    const synced = await callTool(mcp, 'svc_sync_onchain_memories', {});
    assert.deepEqual(synced.value, { restored: ['launch'], unchanged: [] });
    const restored = (await memories()).find((m) => m.key === 'launch')!;
    assert.deepEqual([restored.content, restored.txid], [content, promoted.value.txid]);
    assert.deepEqual((await callTool(mcp, 'svc_sync_onchain_memories', {})).value, { restored: [], unchanged: ['launch'] });
    // Changed after it was sent, the memory is unsent again.
    assert.equal((await callTool(mcp, 'svc_save_memory', { key: 'launch', content: 'the code changed' })).isError, false);
    assert.equal((await memories()).find((m) => m.key === 'launch')!.txid, null);
    assert.equal((await callTool(mcp, 'svc_promote_memory', { key: 'launch' })).isError, false);
  });

  it('refuses a promote of an unknown memory or bad arguments', async () => {
    const unknown = await callTool(mcp, 'svc_promote_memory', { key: 'never-saved' });
    assert.equal(unknown.isError, true);
    assert.match(unknown.text, /memory "never-saved" not found/);
    const bad = await callTool(mcp, 'svc_promote_memory', { key: 42 });
    assert.equal(bad.isError, true);
    assert.equal((await callTool(mcpB, 'svc_promote_memory', { key: 'launch' })).isError, true);
  });

  it('backfills the memories whose txid stayed NULL while the chain was unreachable', async () => {
    assert.equal((await callTool(mcp, 'svc_save_memory', { key: 'offline', content: 'written during the outage' })).isError, false);
    fakes.chain.down = true;
    try {
      const failed = await callTool(mcp, 'svc_promote_memory', { key: 'offline' });
      assert.equal(failed.isError, true);
      assert.match(failed.text, /algod .* failed/);
      const stillDown = await server.api('POST', '/api/memories/backfill', { key: a.operator, body: {} });
      assert.equal(stillDown.status, 200, stillDown.text);
      assert.deepEqual(stillDown.body.sent, []);
      assert.ok(stillDown.body.remaining >= 1);
      assert.match(stillDown.body.error, /failed/);
    } finally {
      fakes.chain.down = false;
    }
    assert.equal((await memories()).find((m) => m.key === 'offline')!.txid, null);
    assert.equal((await server.api('POST', '/api/memories/backfill', { key: a.viewer, body: {} })).status, 403);
    const done = await server.api('POST', '/api/memories/backfill', { key: a.operator, body: {} });
    assert.equal(done.status, 200, done.text);
    assert.deepEqual(done.body.sent.map((s: any) => s.key), ['offline']);
    assert.deepEqual([done.body.remaining, done.body.error], [0, null]);
    assert.equal((await memories()).find((m) => m.key === 'offline')!.txid, done.body.sent[0].txid);
    assert.equal(plaintextOnChain(fakes.chain, 'written during the outage'), false);
    // Tenant b has nothing to send, and sees nothing of a's.
    assert.deepEqual((await server.api('POST', '/api/memories/backfill', { key: b.owner, body: {} })).body.sent, []);
  });

  it('looks a PSK contact up by name, within the caller\'s tenant only', async () => {
    const made = await server.api('POST', '/api/chainchat/psk-contacts', { key: a.owner, body: { name: 'Grace Hopper' } });
    assert.equal(made.status, 201);
    const found = await callTool(mcp, 'svc_lookup_contact', { name: 'grace hopper' });
    assert.equal(found.isError, false, found.text);
    assert.deepEqual(found.value.contacts, [{ id: made.body.id, name: 'Grace Hopper', address: null }]);
    const elsewhere = await callTool(mcpB, 'svc_lookup_contact', { name: 'Grace Hopper' });
    assert.equal(elsewhere.isError, true);
    assert.match(elsewhere.text, /no PSK contact named/);
    assert.equal((await callTool(mcp, 'svc_lookup_contact', {})).isError, true);
  });

  it('sends an owner question on-chain through the notifications channel and takes the answer from there', async () => {
    const owner = new Participant(fakes.chain);
    assert.equal((await server.api('POST', '/api/allowlist', { key: a.owner, body: { address: owner.address, owner: true } })).status, 201);
    await owner.send(roost, roostX, '/credits');
    await owner.reply(roost, roostX, (t) => t === 'Owner addresses are not charged.');
    const channel = await server.api('POST', '/api/notification-channels', { key: a.owner, body: { type: 'chainchat', name: 'chain', config: { address: owner.address } } });
    assert.equal(channel.status, 201, channel.text);
    const asking = callTool(mcp, 'svc_ask_owner', { question: 'Deploy now?', options: ['yes', 'no'], timeout: 2 });
    const question = await owner.reply(roost, roostX, (t) => t.startsWith('Question from your agent: Deploy now?'));
    assert.match(question.text, /Options: 1\) yes {2}2\) no/);
    const shortId = /\/answer (\w+)/.exec(question.text)![1]!;
    await owner.send(roost, roostX, `/answer ${shortId} yes`);
    const result = await asking;
    assert.equal(result.isError, false, result.text);
    assert.deepEqual([result.value.answered, result.value.answer, result.value.channel], [true, 'yes', 'chainchat']);
    await owner.reply(roost, roostX, (t) => /Answered: yes/.test(t));
    await waitFor('the question closed on-chain', async () => owner.received(roost, roostX).find((m) => /Answered: "yes"/.test(m.text)));
  });

  it('delivers an owner notification on-chain as a channel, and refuses one without an address', async () => {
    const bad = await callAs(server, a.owner, 'POST', '/api/internal/bridges/chainchat/deliver', { kind: 'notification', channel: { type: 'chainchat' }, text: 'hi' });
    assert.equal(bad.status, 400);
    assert.match(bad.body.error, /channel\.address/);
    const unknown = await callAs(server, a.owner, 'POST', '/api/internal/bridges/chainchat/deliver', { kind: 'notification', channel: { type: 'chainchat', address: 'A'.repeat(58) }, text: 'hi' });
    assert.equal(unknown.status, 400);
  });
});
