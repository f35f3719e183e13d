import assert from 'node:assert/strict';
import { createPublicKey, verify } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { agentToken, callTool, createAgent, instanceMembers, mcpClient, registerTenant, type Tenant } from '../agents/support.js';
import { record, startReputationServer } from './support.js';

describe('reputation: attestations signed by one server, verified by anyone and by another server', () => {
  let a: TestServer;
  let b: TestServer;
  let tenant: Tenant;
  let other: Tenant;
  let agent: any;
  let foreignAgent: any;
  before(async () => {
    // B checks A's key over this machine's loopback: its own tenant may, with the owner's opt-in.
    [a, b] = await Promise.all([startReputationServer(), startTestServer({ env: { ROOST_EXT_REPUTATION_ALLOW_LOOPBACK: '1' } })]);
    [tenant, other] = await Promise.all([registerTenant(a, 'attesting'), registerTenant(a, 'other')]);
    agent = await createAgent(a, tenant.operator, { name: 'attested' });
    foreignAgent = await createAgent(a, other.operator, { name: 'foreign' });
    await record(a, tenant.operator, { agentId: agent.id, kind: 'work_task_merged' });
    assert.equal((await a.api('PUT', `/api/reputation/identity/${agent.id}`, { key: tenant.owner, body: { tier: 'verified' } })).status, 200);
  });
  after(() => Promise.all([a.cleanup(), b.cleanup()]));

  const publish = async () => {
    const res = await a.api('POST', `/api/reputation/attestation/${agent.id}`, { key: tenant.operator, body: { ttlHours: 24 } });
    assert.equal(res.status, 201, res.text);
    return res.body;
  };

  it('signs the score and tier; anyone checks it with the published key', async () => {
    const { attestation, statement } = await publish();
    assert.equal(statement.agentId, agent.id);
    assert.equal(statement.tier, 'verified');
    assert.ok(statement.score > 50);
    const key = await fetch(`${a.url}/.well-known/roost-attestation-key`).then((r) => r.json());
    assert.equal(attestation.keyId, key.keyId);
    const publicKey = createPublicKey(key.publicKeyPem);
    assert.equal(verify(null, Buffer.from(attestation.payload), publicKey, Buffer.from(attestation.signature, 'base64url')), true);
    const tampered = attestation.payload.replace(`"score":${statement.score}`, '"score":99.9');
    assert.notEqual(tampered, attestation.payload);
    assert.equal(verify(null, Buffer.from(tampered), publicKey, Buffer.from(attestation.signature, 'base64url')), false);
    const latest = await a.api('GET', `/api/reputation/attestation/${agent.id}`, { key: tenant.viewer });
    assert.deepEqual(latest.body.attestation, attestation);
    assert.equal((await a.api('GET', `/api/reputation/attestation/${foreignAgent.id}`, { key: tenant.viewer })).status, 404);
    assert.equal((await a.api('POST', `/api/reputation/attestation/${agent.id}`, { key: tenant.operator, body: { ttlHours: 0 } })).status, 400);
  });

  it('another server verifies it through svc_verify_agent_reputation and refuses a tampered one', async () => {
    const { attestation, statement } = await publish();
    const bTenant = await instanceMembers(b);
    const client = await mcpClient(b, bTenant.operator);
    try {
      const ok = await callTool(client, 'svc_verify_agent_reputation', { attestation, issuer_url: a.url });
      assert.equal(ok.isError, false, ok.text);
      assert.equal(ok.value.valid, true);
      assert.equal(ok.value.statement.score, statement.score);
      assert.equal(ok.value.issuer, a.url);
      const asText = await callTool(client, 'svc_verify_agent_reputation', { attestation: JSON.stringify(attestation), issuer_url: a.url });
      assert.equal(asText.value.valid, true);

      const tampered = { ...attestation, payload: attestation.payload.replace('"tier":"verified"', '"tier":"trusted"') };
      const refused = await callTool(client, 'svc_verify_agent_reputation', { attestation: tampered, issuer_url: a.url });
      assert.equal(refused.isError, true);
      assert.equal(refused.value.valid, false);
      assert.match(refused.value.reason, /signature does not verify/);
      const wrongIssuer = await callTool(client, 'svc_verify_agent_reputation', { attestation, issuer_url: b.url });
      assert.equal(wrongIssuer.isError, true, 'signed with A\'s key, so B is not its issuer');
      assert.match(wrongIssuer.value.reason, /not by the issuer's key/);
      const garbage = await callTool(client, 'svc_verify_agent_reputation', { attestation: { payload: 1 }, issuer_url: a.url });
      assert.equal(garbage.isError, true);
      const noIssuer = await callTool(client, 'svc_verify_agent_reputation', { attestation });
      assert.equal(noIssuer.isError, true);
      assert.match(noIssuer.text, /issuer_url is required/);
      const badUrl = await callTool(client, 'svc_verify_agent_reputation', { attestation, issuer_url: 'file:///etc/passwd' });
      assert.equal(badUrl.isError, true);
      const metadata = await callTool(client, 'svc_verify_agent_reputation', { attestation, issuer_url: 'http://169.254.169.254' });
      assert.equal(metadata.isError, true);
      assert.match(metadata.text, /link-local or cloud-metadata/);
    } finally {
      await client.close();
    }
    // Another tenant of B reaches public addresses only: its agents cannot make B probe this machine.
    const stranger = await mcpClient(b, (await registerTenant(b, 'verifier')).operator);
    try {
      const loopback = await callTool(stranger, 'svc_verify_agent_reputation', { attestation, issuer_url: a.url });
      assert.equal(loopback.isError, true);
      assert.match(loopback.text, /only public addresses may be reached from here/);
    } finally {
      await stranger.close();
    }
  });

  it('agents check their reputation and publish attestations through MCP, within their tenant', async () => {
    const client = await mcpClient(a, await agentToken(a, tenant.operator, agent.id));
    try {
      const checked = await callTool(client, 'svc_check_reputation', {});
      assert.equal(checked.isError, false, checked.text);
      assert.equal(checked.value.agentId, agent.id);
      assert.equal(checked.value.tier, 'verified');
      const foreign = await callTool(client, 'svc_check_reputation', { agent_id: foreignAgent.id });
      assert.equal(foreign.isError, true);
      assert.match(foreign.text, /not found/);
      const bad = await callTool(client, 'svc_check_reputation', { agent_id: 5 });
      assert.equal(bad.isError, true);

      const published = await callTool(client, 'svc_publish_attestation', { ttl_hours: 2 });
      assert.equal(published.isError, false, published.text);
      assert.equal(published.value.statement.agentId, agent.id);
      const foreignAttest = await callTool(client, 'svc_publish_attestation', { agent_id: foreignAgent.id });
      assert.equal(foreignAttest.isError, true);
      const verified = await callTool(client, 'svc_verify_agent_reputation', { attestation: published.value.attestation, issuer_url: a.url });
      assert.equal(verified.value.valid, true);
    } finally {
      await client.close();
    }
    const byKey = await mcpClient(a, tenant.operator);
    try {
      const noAgent = await callTool(byKey, 'svc_check_reputation', {});
      assert.equal(noAgent.isError, true);
      assert.match(noAgent.text, /agent_id is required/);
      const named = await callTool(byKey, 'svc_check_reputation', { agent_id: agent.id });
      assert.equal(named.isError, false, named.text);
    } finally {
      await byKey.close();
    }
  });
});
