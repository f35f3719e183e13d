import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { parsePskUri } from '../../extensions/chainchat/psk-uri.js';
import { callAs, createAgent, registerTenant, type Tenant } from '../agents/support.js';
import { startTestServer, type TestServer, type TestSocket } from '../helpers/server.js';
import { waitFor } from '../helpers/wait.js';
import { Participant, plaintextOnChain, setUpChainchat, startFakes, type Fakes, type Key } from './support.js';

describe('chainchat messaging over the fake chain, through algosdk', () => {
  let fakes: Fakes;
  let server: TestServer;
  let a: Tenant;
  let b: Tenant;
  let roost: string;
  let roostX: Key;
  let socket: TestSocket;

  const conversation = async (participant: string) => {
    const res = await server.api('POST', '/api/chainchat/conversations', { key: a.owner, body: { participant, messages: 50 } });
    assert.equal(res.status, 200, res.text);
    return res.body.conversations[0];
  };
  const outboundTo = (address: string) => fakes.chain.transactions.filter((t) => t.sender === roost && t.receiver === address).length;

  before(async () => {
    fakes = await startFakes();
    server = await startTestServer({ env: fakes.env });
    a = await registerTenant(server, 'cc-a');
    b = await registerTenant(server, 'cc-b');
    await createAgent(server, a.owner, { name: 'helper', model: 'claude-sonnet-5-5' });
    const status = await setUpChainchat(server, a.owner);
    roost = status.address;
    roostX = { mode: 'X', roostX25519: Buffer.from(status.x25519PublicKey, 'base64url') };
    fakes.chain.fund(roost, 50_000_000);
    socket = await server.ws({ key: a.owner });
    socket.send({ type: 'subscribe', chainchat: 'all' });
  });
  after(async () => {
    socket?.close();
    await server?.cleanup();
    await fakes?.close();
  });

  it('reports its status and switches network only for the owner, refusing an unfunded mainnet with the reason', async () => {
    const status = await server.api('GET', '/api/chainchat/status', { key: a.viewer });
    assert.equal(status.body.network, 'testnet');
    assert.equal(status.body.algodReachable, true);
    assert.equal(status.body.genesisId, 'testnet-v1.0');
    assert.ok(status.body.lastRound > 0);
    const notSetUp = await server.api('GET', '/api/chainchat/status', { key: b.owner });
    assert.deepEqual([notSetUp.body.enabled, notSetUp.body.address, notSetUp.body.algodReachable], [false, null, null], 'a tenant that never set chainchat up has no account, and no node is asked for it');
    assert.equal((await server.api('GET', '/api/chainchat/psk-exchange', { key: b.owner })).status, 404, 'reading the exchange URI does not set chainchat up');
    assert.equal((await server.api('GET', '/api/chainchat/status', { key: b.owner })).body.enabled, false);
    assert.equal((await server.api('POST', '/api/chainchat/network', { key: a.operator, body: { network: 'mainnet' } })).status, 403);
    const bad = await server.api('POST', '/api/chainchat/network', { key: a.owner, body: { network: 'moonnet' } });
    assert.equal(bad.status, 400);
    assert.match(bad.body.error, /network/);
    const wrongNode = await server.api('POST', '/api/chainchat/network', { key: b.owner, body: { network: 'mainnet' } });
    assert.equal(wrongNode.status, 409);
    assert.match(wrongNode.body.error, /serves testnet-v1.0, not mainnet-v1.0/);
    fakes.chain.genesisId = 'mainnet-v1.0';
    try {
      const unfunded = await server.api('POST', '/api/chainchat/network', { key: b.owner, body: { network: 'mainnet' } });
      assert.equal(unfunded.status, 409);
      assert.match(unfunded.body.error, /mainnet needs a funded account: \w{58} holds 0 microAlgos/);
    } finally {
      fakes.chain.genesisId = 'testnet-v1.0';
    }
    assert.equal((await server.api('GET', '/api/chainchat/status', { key: b.owner })).body.network, 'testnet');
  });

  it('carries a PSK contact from its QR URI to an encrypted round trip, with the plaintext never on-chain', async () => {
    const made = await server.api('POST', '/api/chainchat/psk-contacts', { key: a.operator, body: { name: 'Alice' } });
    assert.equal(made.status, 201, made.text);
    assert.equal((await server.api('GET', `/api/chainchat/psk-contacts/${made.body.id}/qr`, { key: a.viewer })).status, 403);
    assert.equal((await server.api('GET', `/api/chainchat/psk-contacts/${made.body.id}/qr`, { key: b.owner })).status, 404);
    const qr = await server.api('GET', `/api/chainchat/psk-contacts/${made.body.id}/qr`, { key: a.owner });
    assert.equal(qr.status, 200, qr.text);
    assert.match(qr.body.svg, /^<svg/);
    assert.match(qr.body.png, /^data:image\/png;base64,/);
    const uri = parsePskUri(qr.body.uri);
    assert.deepEqual([uri.addr, uri.label, uri.network], [roost, 'Alice', 'testnet']);
    const alice = new Participant(fakes.chain);
    const key: Key = { mode: 'P', psk: uri.psk };
    const secret = 'the secret plan is under the oak tree';
    await alice.send(roost, key, secret);
    const reply = await alice.reply(roost, key, (t) => t === 'Hello from your agent.');
    assert.equal(reply.txids.length, 1);
    const seen = await socket.next((m: any) => m.type === 'chainchat_message' && m.direction === 'inbound' && m.participant === alice.address);
    assert.equal(seen.content, secret);
    // The reply is recorded once its transactions are confirmed, just after the participant can read it.
    const convo = await waitFor('the reply recorded', async () => {
      const c = await conversation(alice.address);
      return c.messages.length === 2 ? c : undefined;
    });
    assert.deepEqual(convo.messages.map((m: any) => [m.direction, m.content]), [['inbound', secret], ['outbound', 'Hello from your agent.']]);
    const session = await server.api('GET', `/api/sessions/${convo.sessionId}`, { key: a.owner });
    assert.equal(session.body.source, 'chainchat');
    assert.equal((await server.api('GET', '/api/chainchat/psk-contacts', { key: a.owner })).body.contacts[0].address, alice.address);
    assert.equal(plaintextOnChain(fakes.chain, secret), false);
    assert.equal(plaintextOnChain(fakes.chain, 'Hello from your agent.'), false);
    assert.deepEqual((await server.api('POST', '/api/chainchat/conversations', { key: b.owner, body: {} })).body.conversations, []);
  });

  it('splits a message over the note size and reassembles it, both ways', async () => {
    const bob = new Participant(fakes.chain);
    assert.equal((await server.api('POST', '/api/allowlist', { key: a.operator, body: { address: bob.address, label: 'Bob' } })).status, 201);
    const long = Array.from({ length: 300 }, (_, i) => `line ${i} of a long letter`).join('\n');
    const longReply = 'R'.repeat(2_500);
    fakes.anthropic.setScript([longReply]);
    const txids = await bob.send(roost, roostX, long);
    assert.ok(txids.length >= 8, `${txids.length} notes`);
    const reply = await bob.reply(roost, roostX, (t) => t === longReply);
    assert.equal(reply.txids.length, 3);
    assert.ok(fakes.anthropic.requests.some((r) => JSON.stringify(r.body).includes('line 299 of a long letter')));
    assert.equal((await conversation(bob.address)).messages[0].content, long);
  });

  it('ignores a transaction the indexer serves again', async () => {
    const before = fakes.chain.transactions.filter((t) => t.sender === roost).length;
    fakes.chain.replayAll = true;
    try {
      fakes.chain.fund(new Participant(fakes.chain).address, 1);
      const round = fakes.chain.round();
      await waitFor('a poll past the replay', async () => ((await server.api('GET', '/api/chainchat/status', { key: a.owner })).body.lastRoundSeen >= round ? true : undefined));
    } finally {
      fakes.chain.replayAll = false;
    }
    assert.equal(fakes.chain.transactions.filter((t) => t.sender === roost).length, before);
  });

  it('refuses a stranger, and a note sealed with an unknown key, without answering', async () => {
    const stranger = new Participant(fakes.chain);
    await stranger.send(roost, roostX, 'let me in');
    await stranger.send(roost, { mode: 'P', psk: Buffer.alloc(32, 9) }, 'guessing a key');
    const convo = await waitFor('both refusals', async () => {
      const c = await conversation(stranger.address);
      return c?.messages.length === 2 ? c : undefined;
    });
    assert.deepEqual(convo.messages.map((m: any) => [m.direction, m.content]), [['refused', null], ['refused', null]]);
    assert.equal(convo.sessionId, null);
    assert.equal(outboundTo(stranger.address), 0);
  });

  it('serves an allowlisted sender in one keep-alive chainchat session, charging its credits and crediting its payments', async () => {
    const carol = new Participant(fakes.chain);
    await server.api('POST', '/api/allowlist', { key: a.owner, body: { address: carol.address, label: 'Carol' } });
    fakes.anthropic.setScript(['first answer', 'second answer']);
    await carol.send(roost, roostX, 'first question');
    await carol.reply(roost, roostX, (t) => t === 'first answer');
    const first = await conversation(carol.address);
    assert.ok(first.credits < 1_000_000, `charged: ${first.credits}`);
    await carol.send(roost, roostX, 'second question', 250_000);
    await carol.reply(roost, roostX, (t) => t === 'second answer');
    const second = await conversation(carol.address);
    assert.equal(second.sessionId, first.sessionId);
    assert.ok(second.credits > first.credits + 200_000, `credited: ${first.credits} → ${second.credits}`);
  });

  it('answers slash commands on-chain, keeps privileged ones for the owner, and takes an approval answered on-chain', async () => {
    const dave = new Participant(fakes.chain);
    const owner = new Participant(fakes.chain);
    await server.api('POST', '/api/allowlist', { key: a.owner, body: { address: dave.address } });
    assert.equal((await server.api('POST', '/api/allowlist', { key: a.operator, body: { address: owner.address, owner: true } })).status, 403);
    assert.equal((await server.api('POST', '/api/allowlist', { key: a.owner, body: { address: owner.address, owner: true } })).status, 201);
    await dave.send(roost, roostX, '/help');
    await dave.reply(roost, roostX, (t) => t.startsWith('Write to talk to your agent.'));
    await dave.send(roost, roostX, '/credits');
    await dave.reply(roost, roostX, (t) => t === 'Credits: 1000000 microUnits.');
    await dave.send(roost, roostX, `/grant ${dave.address} 5`);
    await dave.reply(roost, roostX, (t) => t === "/grant is for the owner's addresses only.");
    await owner.send(roost, roostX, `/grant ${dave.address} 5`);
    await owner.reply(roost, roostX, (t) => t.startsWith(`Granted 5 microUnits to ${dave.address}`));
    await createAgent(server, a.owner, { name: 'approver', model: 'claude-sonnet-5-5', permissionMode: 'full-auto' });
    const setMode = (mode: string) => server.api('POST', '/api/operational-mode', { body: { mode } });
    try {
      assert.equal((await setMode('queued')).status, 200);
      await owner.send(roost, roostX, '/agent approver');
      await owner.reply(roost, roostX, (t) => t === 'Now talking to approver.');
      fakes.anthropic.setScript([{ toolUses: [{ name: 'write_file', input: { path: 'cc.txt', content: 'approved' } }] }, 'Written after approval.']);
      await owner.send(roost, roostX, 'write cc.txt');
      const approval = await owner.reply(roost, roostX, (t) => /Approval needed: the agent wants to use write_file/.test(t));
      const shortId = /\/approve (\w+)/.exec(approval.text)![1]!;
      await dave.send(roost, roostX, `/approve ${shortId}`);
      await dave.reply(roost, roostX, (t) => t === "/approve is for the owner's addresses only.");
      await owner.send(roost, roostX, `/approve ${shortId}`);
      await owner.reply(roost, roostX, (t) => t === 'Written after approval.', 40_000);
    } finally {
      await setMode('normal');
    }
  });

  it('rotates the exchange key: the old key works through the grace period, then is refused', async () => {
    const exchange = await server.api('GET', '/api/chainchat/psk-exchange', { key: a.operator });
    assert.equal(exchange.status, 200, exchange.text);
    assert.equal((await server.api('GET', '/api/chainchat/psk-exchange', { key: a.viewer })).status, 403);
    const old: Key = { mode: 'P', psk: parsePskUri(exchange.body.uri).psk };
    const erin = new Participant(fakes.chain);
    fakes.anthropic.setScript(['served']);
    await erin.send(roost, old, 'hello via the exchange');
    await erin.reply(roost, old, (t) => t === 'served');
    const rotated = await server.api('POST', '/api/chainchat/psk-exchange', { key: a.owner, body: {} });
    assert.equal(rotated.status, 201, rotated.text);
    assert.notEqual(rotated.body.keyId, exchange.body.keyId);
    const fresh: Key = { mode: 'P', psk: parsePskUri(rotated.body.uri).psk };
    await erin.send(roost, old, 'still on the old key');
    await waitFor('the old key served in its grace', async () => (erin.received(roost, old).filter((m) => m.text === 'served').length === 2 ? true : undefined), 30_000);
    const clock = await callAs(server, a.owner, 'POST', '/api/internal/chainchat/test-clock', { advanceMs: 8 * 86_400_000 });
    assert.equal(clock.status, 200);
    await erin.send(roost, old, 'after the grace');
    await waitFor('the refusal', async () => ((await conversation(erin.address)).messages.at(-1)?.direction === 'refused' ? true : undefined));
    const frank = new Participant(fakes.chain);
    await frank.send(roost, fresh, 'on the new key');
    await frank.reply(roost, fresh, (t) => t === 'served');
  });

  it('refuses bad allowlist and contact input clearly', async () => {
    for (const [body, status, message] of [
      [{ address: 'not-an-address' }, 400, /body\.address/],
      [{ address: 'A'.repeat(58) }, 400, /Algorand address/],
      [{ address: new Participant(fakes.chain).address, extra: 1 }, 400, /extra|additional/],
    ] as const) {
      const res = await server.api('POST', '/api/allowlist', { key: a.owner, body });
      assert.equal(res.status, status, res.text);
      assert.match(res.body.error, message);
    }
    const dup = (await server.api('GET', '/api/allowlist', { key: a.owner })).body.entries[0].address;
    assert.equal((await server.api('POST', '/api/allowlist', { key: a.owner, body: { address: dup } })).status, 409);
    assert.equal((await server.api('PUT', `/api/allowlist/${dup}`, { key: b.owner, body: { label: 'x' } })).status, 404);
    assert.equal((await server.api('DELETE', `/api/allowlist/${dup}`, { key: a.viewer })).status, 403);
    assert.equal((await server.api('POST', '/api/chainchat/psk-contacts', { key: a.owner, raw: '{"name":' })).status, 400);
    assert.equal((await server.api('POST', '/api/chainchat/psk-contacts', { key: a.owner, body: { name: 'x'.repeat(2_000_000) } })).status, 413);
    let nested: unknown = 'deep';
    for (let i = 0; i < 200; i++) nested = { n: nested };
    assert.equal((await server.api('POST', '/api/chainchat/conversations', { key: a.owner, body: nested })).status, 400);
    const contact = (await server.api('GET', '/api/chainchat/psk-contacts', { key: a.owner })).body.contacts[0];
    assert.equal((await server.api('PATCH', `/api/chainchat/psk-contacts/${contact.id}`, { key: b.owner, body: { name: 'mine' } })).status, 404);
    const renamed = await server.api('PATCH', `/api/chainchat/psk-contacts/${contact.id}`, { key: a.owner, body: { name: 'Alice B.' } });
    assert.equal(renamed.body.name, 'Alice B.');
    assert.equal((await server.api('DELETE', `/api/chainchat/psk-contacts/${contact.id}`, { key: b.owner })).status, 404);
    assert.equal((await server.api('DELETE', `/api/chainchat/psk-contacts/${contact.id}`, { key: a.owner })).status, 204);
    assert.equal((await server.api('POST', '/api/chainchat/network', { key: a.owner, body: { network: 'testnet' }, headers: { origin: 'https://evil.example' } })).status, 403);
  });
});
