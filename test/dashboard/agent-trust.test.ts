// An agent's reputation and sandbox on its page: the score, a recompute, the identity tier raised by the
// owner, a signed attestation shown, copied and verified with the server's published key; the sandbox
// policy from the defaults to one of its own (a bad folder refused by the server) and back; the sandbox
// pool on the plugins page.
import assert from 'node:assert/strict';
import { createPublicKey, verify } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { startDashboard, type Dashboard } from './browser.js';

describe('reputation and sandbox on the agent page', () => {
  let d: Dashboard;
  let agentId = '';
  before(async () => {
    d = await startDashboard();
    await d.context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: d.server.url });
    const agent = await d.server.api('POST', '/api/agents', { body: { name: 'Trusty' } });
    assert.equal(agent.status, 201, agent.text);
    agentId = agent.body.id;
  });
  after(() => d.close());

  it('shows the score, recomputes it, raises the tier and signs an attestation that verifies', async () => {
    const { page } = d;
    await d.open(`agents/${agentId}`, 'Agent Trusty');
    const card = page.locator('section.card', { has: page.getByRole('heading', { name: 'Reputation', exact: true }) });
    await card.getByText('50.0').waitFor();
    await card.getByRole('button', { name: 'Recompute' }).click();
    await card.getByLabel('Identity tier').selectOption('verified');
    await card.getByRole('button', { name: 'Set tier' }).click();
    await card.locator('dd', { hasText: /^verified$/ }).waitFor();
    await card.getByRole('button', { name: 'Sign an attestation' }).click();
    const shown = card.getByLabel('Signed attestation (JSON)');
    await shown.waitFor();
    const attestation = JSON.parse((await shown.textContent())!);
    assert.equal(attestation.algorithm, 'Ed25519');
    const statement = JSON.parse(attestation.payload);
    assert.deepEqual([statement.agentId, statement.agentName, statement.tier], [agentId, 'Trusty', 'verified']);
    const key = await (await fetch(`${d.server.url}/.well-known/roost-attestation-key`)).json();
    assert.ok(verify(null, Buffer.from(attestation.payload), createPublicKey(key.publicKeyPem), Buffer.from(attestation.signature, 'base64url')), 'the shown attestation verifies');
    await card.getByRole('button', { name: 'Copy attestation' }).click();
    await card.getByRole('status').filter({ hasText: 'Copied.' }).waitFor();
    assert.deepEqual(JSON.parse(await page.evaluate(() => navigator.clipboard.readText())), attestation);
    await d.checkAccessibility('the agent page with reputation and sandbox');
    await d.shot('agent-reputation');
  });

  it('sets a sandbox policy of the agent\'s own, shows the server refusing a bad folder, and resets it', async () => {
    const { page } = d;
    await d.open(`agents/${agentId}`, 'Agent Trusty');
    const card = page.locator('section.card', { has: page.getByRole('heading', { name: 'Sandbox', exact: true }) });
    await card.getByText('This agent gets the defaults.').waitFor();
    assert.equal(await card.getByLabel('Memory (MB)').inputValue(), '1024');
    await card.getByLabel('Network access').check();
    await card.getByLabel('Memory (MB)').fill('512');
    await card.getByLabel('Writable folders (one a line, relative)').fill('../outside');
    await card.getByRole('button', { name: 'Save sandbox policy' }).click();
    await card.getByRole('alert').waitFor();
    await card.getByLabel('Writable folders (one a line, relative)').fill('out\nlogs');
    await card.getByRole('button', { name: 'Save sandbox policy' }).click();
    await card.getByText('This agent has a policy of its own.').waitFor();
    const policy = (await d.server.api('GET', `/api/sandbox/policies/${agentId}`)).body;
    assert.deepEqual([policy.network, policy.memoryMb, policy.writablePaths, policy.cpuSeconds], [true, 512, ['out', 'logs'], 60]);
    await card.getByRole('button', { name: 'Reset to the defaults' }).click();
    await card.getByText('This agent gets the defaults.').waitFor();
    assert.equal((await d.server.api('GET', `/api/sandbox/policies/${agentId}`)).status, 404);
    assert.equal(await card.getByLabel('Memory (MB)').inputValue(), '1024');
  });

  it('shows the sandbox pool on the plugins page', async () => {
    const { page } = d;
    await d.open('plugins', 'Plugins');
    const pool = page.locator('section.card', { has: page.getByRole('heading', { name: 'Sandbox pool' }) });
    await pool.getByText('Ready / target').waitFor();
    const stats = (await d.server.api('GET', '/api/sandbox/stats')).body;
    await pool.getByText(stats.available ? 'Bubblewrap works here' : 'No sandbox on this instance').waitFor();
    await d.checkAccessibility('the plugins page with the sandbox pool');
  });
});
