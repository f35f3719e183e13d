// A restart loses nothing and repeats nothing: what came while the server was down is answered once,
// what was answered before is not answered again, and the participant keeps its session.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createAgent, registerTenant, type Tenant } from '../agents/support.js';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { waitFor } from '../helpers/wait.js';
import { Participant, setUpChainchat, startFakes, type Fakes, type Key } from './support.js';

describe('chainchat across a restart', () => {
  let fakes: Fakes;
  let server: TestServer;
  let a: Tenant;

  before(async () => {
    fakes = await startFakes();
    server = await startTestServer({ env: fakes.env });
    a = await registerTenant(server, 'ccr-a');
    await createAgent(server, a.owner, { name: 'helper', model: 'claude-sonnet-5-5' });
  });
  after(async () => {
    await server?.cleanup();
    await fakes?.close();
  });

  it('answers what came while it was down once, and nothing twice', async () => {
    const status = await setUpChainchat(server, a.owner);
    const roost: string = status.address;
    const key: Key = { mode: 'X', roostX25519: Buffer.from(status.x25519PublicKey, 'base64url') };
    fakes.chain.fund(roost, 10_000_000);
    const pat = new Participant(fakes.chain);
    assert.equal((await server.api('POST', '/api/allowlist', { key: a.owner, body: { address: pat.address } })).status, 201);
    fakes.anthropic.setScript(['before the restart', 'after the restart']);
    await pat.send(roost, key, 'one');
    await pat.reply(roost, key, (t) => t === 'before the restart');
    const conversation = async () => (await server.api('POST', '/api/chainchat/conversations', { key: a.owner, body: { participant: pat.address, messages: 10 } })).body.conversations[0];
    const sessionId = (await waitFor('the reply recorded', async () => ((await conversation()).messages.length === 2 ? conversation() : undefined))).sessionId;

    await server.stop();
    await pat.send(roost, key, 'two');
    server = await startTestServer({ env: fakes.env, dataDir: server.dataDir });
    // The poller starts with the server (it asked to be woken): no request is needed to read the chain.
    await pat.reply(roost, key, (t) => t === 'after the restart');
    const after = await waitFor('both turns recorded', async () => {
      const c = await conversation();
      return c.messages.length === 4 ? c : undefined;
    });
    assert.deepEqual(after.messages.map((m: any) => m.content), ['one', 'before the restart', 'two', 'after the restart']);
    assert.equal(after.sessionId, sessionId);
    assert.equal(fakes.chain.transactions.filter((t) => t.sender === roost && t.receiver === pat.address).length, 2);
  });
});
