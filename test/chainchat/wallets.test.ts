// The seed's /api/wallets/* as a client written from the seed uses them: external wallets are the
// on-chain senders who pay for what agents do for them (their purchase comes over the fake chain), and
// agent-to-agent messages carry the txid of their on-chain copy.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import algosdk from 'algosdk';
import { parseNote } from '../../extensions/chainchat/envelope.js';
import { createAgent, registerTenant, type Tenant } from '../agents/support.js';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { waitFor } from '../helpers/wait.js';
import { Participant, plaintextOnChain, setUpChainchat, startFakes, type Fakes, type Key } from './support.js';

describe('external wallets and agent messages on-chain, over the fake chain', () => {
  let fakes: Fakes;
  let server: TestServer;
  let a: Tenant;
  let b: Tenant;
  let roost: string;
  let roostX: Key;
  let carol: Participant;
  let helper: any;
  let asker: any;

  before(async () => {
    fakes = await startFakes();
    server = await startTestServer({ env: fakes.env });
    a = await registerTenant(server, 'wallets-a');
    b = await registerTenant(server, 'wallets-b');
    helper = await createAgent(server, a.owner, { name: 'helper', model: 'claude-sonnet-5-5' });
    asker = await createAgent(server, a.owner, { name: 'asker', model: 'claude-sonnet-5-5' });
    const status = await setUpChainchat(server, a.owner);
    await setUpChainchat(server, b.owner);
    roost = status.address;
    roostX = { mode: 'X', roostX25519: Buffer.from(status.x25519PublicKey, 'base64url') };
    fakes.chain.fund(roost, 50_000_000);
    // An external sender buys credits: a payment to the tenant's account, with a message in its note.
    carol = new Participant(fakes.chain);
    assert.equal((await server.api('POST', '/api/allowlist', { key: a.owner, body: { address: carol.address, label: 'Carol Payer' } })).status, 201);
    await carol.send(roost, roostX, 'buying credits', 250_000);
    await carol.reply(roost, roostX, (t) => t === 'Hello from your agent.');
  });
  after(async () => {
    await server?.cleanup();
    await fakes?.close();
  });

  const summary = (key: string, query = '') => server.api('GET', `/api/wallets/summary${query}`, { key });
  const messagesOf = (key: string, address: string, query = '') => server.api('GET', `/api/wallets/${address}/messages${query}`, { key });

  it('summarises the external wallets, searchable by address or label, with the credits they bought', async () => {
    const listed = await waitFor('both messages recorded', async () => {
      const res = await summary(a.viewer);
      return res.body.wallets?.[0]?.messageCount === 2 ? res : undefined;
    });
    assert.equal(listed.status, 200, listed.text);
    assert.deepEqual(listed.body.wallets.map((w: any) => [w.address, w.kind, w.unit]), [[carol.address, 'external', 'microUnits']]);
    const wallet = listed.body.wallets[0];
    assert.ok(wallet.balance > 1_000_000, `the initial credits and the payment, less the turn: ${wallet.balance}`);
    assert.equal(wallet.agentId, helper.id);
    assert.equal(listed.body.total, 1);
    for (const search of [carol.address.slice(3, 15), 'carol pay']) {
      assert.deepEqual((await summary(a.viewer, `?search=${encodeURIComponent(search)}`)).body.wallets.map((w: any) => w.address), [carol.address], search);
    }
    assert.deepEqual((await summary(a.viewer, '?search=nobody')).body.wallets, []);
    const agents = await summary(a.viewer, '?kind=agent');
    assert.deepEqual(agents.body.wallets.map((w: any) => w.agentName).sort(), ['asker', 'helper'], "the agents' own wallets, as before");
    assert.equal((await summary(a.viewer, '?kind=martian')).status, 400);
    assert.equal((await summary(a.viewer, '?limit=0')).status, 400);
  });

  it("pages an external wallet's on-chain messages newest first with limit and offset", async () => {
    const first = await messagesOf(a.viewer, carol.address, '?limit=1');
    assert.equal(first.status, 200, first.text);
    assert.deepEqual([first.body.wallet, first.body.kind, first.body.hasMore, first.body.limit, first.body.offset], [carol.address, 'external', true, 1, 0]);
    assert.deepEqual(first.body.messages.map((m: any) => [m.direction, m.content]), [['outbound', 'Hello from your agent.']]);
    const second = await messagesOf(a.viewer, carol.address, '?limit=1&offset=1');
    assert.deepEqual(second.body.messages.map((m: any) => [m.direction, m.content]), [['inbound', 'buying credits']]);
    const paid = fakes.chain.transactions.find((t) => t.sender === carol.address && t.amount === 250_000n)!;
    assert.equal(second.body.messages[0].txid, paid.id, 'the txid of the transaction that carried it');
    assert.deepEqual([second.body.hasMore, second.body.total], [false, 2]);
    for (const query of ['?limit=0', '?offset=-1', '?limit=abc']) assert.equal((await messagesOf(a.viewer, carol.address, query)).status, 400, query);
    const stranger = algosdk.generateAccount().addr.toString();
    assert.equal((await messagesOf(a.viewer, stranger)).status, 404);
  });

  it('lets the owner grant credits to an external wallet', async () => {
    const before = (await messagesOf(a.viewer, carol.address)).body.balance;
    assert.equal((await server.api('POST', `/api/wallets/${carol.address}/credits`, { key: a.operator, body: { microUnits: 5_000_000 } })).status, 403);
    assert.equal((await server.api('POST', `/api/wallets/${carol.address}/credits`, { key: a.owner, body: { microUnits: -5 } })).status, 400);
    const granted = await server.api('POST', `/api/wallets/${carol.address}/credits`, { key: a.owner, body: { microUnits: 5_000_000, reason: 'a loyal sender' } });
    assert.equal(granted.status, 200, granted.text);
    assert.deepEqual(granted.body, { wallet: carol.address, kind: 'external', granted: 5_000_000, balance: before + 5_000_000, unit: 'microUnits' });
    assert.equal((await summary(a.viewer)).body.wallets[0].balance, before + 5_000_000);
    const stranger = algosdk.generateAccount().addr.toString();
    assert.equal((await server.api('POST', `/api/wallets/${stranger}/credits`, { key: a.owner, body: { microUnits: 1 } })).status, 404, 'an address the tenant never saw');
  });

  it("shows another tenant nothing of a tenant's external wallets", async () => {
    assert.deepEqual((await summary(b.owner)).body.wallets, []);
    assert.deepEqual((await summary(b.owner, `?search=${carol.address}`)).body.wallets, []);
    assert.equal((await messagesOf(b.owner, carol.address)).status, 404);
    assert.equal((await server.api('POST', `/api/wallets/${carol.address}/credits`, { key: b.owner, body: { microUnits: 1 } })).status, 404);
  });

  const messageOf = async (agentId: string, id: string) => (await server.api('GET', `/api/agents/${agentId}/messages?limit=50`, { key: a.viewer })).body.messages.find((m: any) => m.id === id);

  it('sends an agent-to-agent message on-chain, sealed, and records its txid on the message', async () => {
    const sent = await server.api('POST', `/api/agents/${helper.id}/invoke`, { key: a.operator, body: { content: 'the agent plan is under the oak', fromAgentId: asker.id } });
    assert.equal(sent.status, 201, sent.text);
    assert.equal(sent.body.message.txid, null);
    assert.match(sent.body.message.txidReason, /queued to be sent on-chain/);
    const stored = await waitFor('the txid recorded', async () => {
      const m = await messageOf(helper.id, sent.body.message.id);
      return m?.txid ? m : undefined;
    });
    assert.equal(stored.txidReason, null);
    const txn = fakes.chain.transactions.find((t) => t.id === stored.txid);
    assert.ok(txn, 'the txid is a transaction on the chain');
    assert.deepEqual([txn.sender, txn.receiver, parseNote(txn.note)?.mode], [roost, roost, 'M']);
    assert.equal(plaintextOnChain(fakes.chain, 'the agent plan is under the oak'), false);
  });

  it('keeps a message the chain cannot take, says why, and sends it once the chain is back', async () => {
    fakes.chain.down = true;
    let id: string;
    try {
      const sent = await server.api('POST', `/api/agents/${helper.id}/invoke`, { key: a.operator, body: { content: 'while the chain is down' } });
      assert.equal(sent.status, 201, sent.text);
      id = sent.body.message.id;
      const waiting = await waitFor('the failure on the message', async () => {
        const m = await messageOf(helper.id, id);
        return /retrying/.test(m?.txidReason ?? '') ? m : undefined;
      });
      assert.equal(waiting.txid, null);
      assert.match(waiting.txidReason, /sending on-chain failed, retrying \(algod .*503/);
    } finally {
      fakes.chain.down = false;
    }
    const stored = await waitFor('the txid once the chain is back', async () => {
      const m = await messageOf(helper.id, id);
      return m?.txid ? m : undefined;
    });
    assert.ok(fakes.chain.transactions.some((t) => t.id === stored.txid));
  });

  it('leaves the txid null, saying why, where chainchat is not set up', async () => {
    const c = await registerTenant(server, 'wallets-c');
    const x = await createAgent(server, c.owner, { name: 'x', model: 'claude-sonnet-5-5' });
    const y = await createAgent(server, c.owner, { name: 'y', model: 'claude-sonnet-5-5' });
    const sent = await server.api('POST', `/api/agents/${y.id}/invoke`, { key: c.operator, body: { content: 'off-chain', fromAgentId: x.id } });
    assert.equal(sent.status, 201, sent.text);
    assert.equal(sent.body.message.txid, null);
    assert.match(sent.body.message.txidReason, /chainchat is not set up for this tenant/);
    assert.deepEqual((await summary(c.viewer)).body.wallets, []);
  });
});
