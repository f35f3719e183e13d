import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { registerTenant, type Tenant } from '../agents/support.js';
import { BOT_TOKEN, SIGNING_SECRET, TEAM, assertNoSecrets, mention, startSlackHarness, type SlackHarness } from './support.js';

describe('slack: configuration and request signatures', () => {
  let h: SlackHarness;
  let other: Tenant;
  let agent: any;
  before(async () => {
    h = await startSlackHarness();
    other = await registerTenant(h.server, 'other-org');
    agent = await h.agent();
  });
  after(() => h.close());

  it('stores the configuration sealed, checks the token with auth.test and never returns a secret', async () => {
    assert.deepEqual((await h.server.api('GET', '/api/bridges/slack')).body, { configured: false });
    const missing = await h.configure({ defaultAgentId: agent.id });
    assert.equal(missing.status, 400);
    assert.match(missing.body.error, /botToken and signingSecret are required/);

    const put = await h.configure({ botToken: BOT_TOKEN, signingSecret: SIGNING_SECRET, defaultAgentId: agent.id, channels: { C0GENERAL: agent.id } });
    assert.equal(put.status, 200, put.text);
    assert.equal(put.body.teamId, TEAM);
    assert.equal(put.body.hasBotToken, true);
    assert.equal(put.body.hasSigningSecret, true);
    assertNoSecrets(put.text);
    const got = await h.server.api('GET', '/api/bridges/slack');
    assert.deepEqual(got.body.channels, { C0GENERAL: agent.id });
    assertNoSecrets(got.text);
    assert.ok(h.slack.calls.some((c) => c.method === 'auth.test' && c.token === BOT_TOKEN));

    // A later change keeps the stored secrets.
    const kept = await h.configure({ channels: {} });
    assert.equal(kept.status, 200);
    assert.equal(kept.body.hasBotToken, true);
  });

  it('refuses bad input, unknown and foreign agents, a token Slack refuses', async () => {
    for (const body of [{ botToken: 'not-a-token' }, { channels: { lowercase: agent.id } }, { signingSecret: 5 }, { extra: true }]) {
      const res = await h.configure(body);
      assert.equal(res.status, 400, JSON.stringify(body));
      assert.equal(res.body.code, 'VALIDATION_ERROR');
    }
    const foreign = await h.agent({}, other.owner);
    const res = await h.configure({ defaultAgentId: foreign.id });
    assert.equal(res.status, 400);
    assert.match(res.body.error, /not found/);
    const refused = await h.configure({ botToken: 'xoxb-2-unknown' });
    assert.equal(refused.status, 400);
    assert.match(refused.body.error, /invalid_auth/);
    assert.equal((await h.server.api('PUT', '/api/bridges/slack', { raw: '{"botToken":' })).status, 400);
  });

  it('is the owner’s only, and one tenant cannot see or take another’s workspace', async () => {
    assert.equal((await h.server.api('GET', '/api/bridges/slack', { key: other.operator })).status, 403);
    assert.equal((await h.server.api('PUT', '/api/bridges/slack', { key: other.operator, body: { channels: {} } })).status, 403);
    assert.equal((await h.server.api('GET', '/api/bridges/slack', { key: other.viewer })).status, 403);
    assert.deepEqual((await h.server.api('GET', '/api/bridges/slack', { key: other.owner })).body, { configured: false });
    const taken = await h.configure({ botToken: BOT_TOKEN, signingSecret: 'another-secret-123' }, other.owner);
    assert.equal(taken.status, 409);
    assert.equal(taken.body.code, 'CONFLICT');
  });

  it('answers the url_verification handshake only when signed, and refuses invalid, stale and unsigned events', async () => {
    const handshake = { type: 'url_verification', token: 'legacy', challenge: 'c-123' };
    const ok = await h.deliver(handshake);
    assert.equal(ok.status, 200);
    assert.deepEqual(ok.body, { challenge: 'c-123' });

    const invalid = await h.deliver(handshake, { secret: 'wrong-secret' });
    assert.equal(invalid.status, 401);
    assert.equal(invalid.body.code, 'INVALID_SIGNATURE');
    const stale = await h.deliver(mention('C0GENERAL', 'hello'), { timestamp: Math.floor(Date.now() / 1000) - 600 });
    assert.equal(stale.status, 401);
    assert.match(stale.body.error, /five-minute window/);
    const unsigned = await h.server.api('POST', '/workchat/events', { raw: JSON.stringify(mention('C0GENERAL', 'hi')) });
    assert.equal(unsigned.status, 401);
    const tampered = await h.deliver(mention('C0GENERAL', 'hi'), { headers: { 'x-slack-signature': `v0=${'0'.repeat(64)}` } });
    assert.equal(tampered.status, 401);
    // The handshake names no workspace, so it costs a check against every tenant's secret: a flood of
    // them is cut off (30 a minute) instead of making the bridge decrypt every configuration again and again.
    const flood = [];
    for (let i = 0; i < 40; i++) flood.push((await h.deliver({ ...handshake, challenge: `c-${i}` }, { secret: 'wrong-secret' })).status);
    assert.ok(flood.includes(429), `some handshakes were refused: ${flood.join(',')}`);
    assert.ok(flood.every((s) => s === 401 || s === 429));
    assert.equal(h.slack.posts().length, 0, 'nothing refused reached the agent or Slack');
  });

  it('refuses malformed, unknown-workspace, oversized and deeply nested bodies', async () => {
    const notJson = await h.server.api('POST', '/workchat/events', { raw: '{"type":', headers: { 'content-type': 'text/plain' } });
    assert.equal(notJson.status, 400);
    assert.equal((await h.server.api('POST', '/workchat/events', { raw: '' })).status, 400);
    // An unknown workspace is answered like a bad signature: nobody learns which workspaces are connected.
    const unknownTeam = await h.deliver({ ...mention('C0GENERAL', 'x'), team_id: 'T0NOBODY' });
    assert.equal(unknownTeam.status, 401);
    assert.equal(unknownTeam.body.error, 'the Slack signature does not match');
    const noTeam = await h.deliver({ type: 'event_callback', event_id: 'Ev-noteam', event: { type: 'app_mention', channel: 'C0GENERAL', user: 'U1', text: 'x', ts: '5.5' } });
    assert.equal(noTeam.status, 400);
    assert.match(noTeam.body.error, /names no workspace/);
    const big = await h.server.api('POST', '/workchat/events', { raw: JSON.stringify({ type: 'event_callback', pad: 'x'.repeat(2 * 1024 * 1024) }) });
    assert.equal(big.status, 413);
    const nested = await h.deliver(`{"type":"event_callback","team_id":"${TEAM}","event_id":"Ev-nest","deep":${'['.repeat(100_000)}${']'.repeat(100_000)}}`);
    assert.ok([200, 400].includes(nested.status), `deep nesting is answered, not crashed on: ${nested.status}`);
    const noPayload = await h.server.api('POST', '/workchat/interactions', { raw: 'nothing=here', headers: { 'content-type': 'application/x-www-form-urlencoded' } });
    assert.equal(noPayload.status, 400);
    assert.equal((await h.server.api('GET', '/api/health')).status, 200);
  });
});
