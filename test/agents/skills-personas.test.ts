import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { TestServer } from '../helpers/server.js';
import { createAgent, registerTenant, startServer, type Tenant } from './support.js';

describe('agents: personas, skill bundles, presets and agent cards', () => {
  let server: TestServer;
  let t: Tenant;
  before(async () => {
    server = await startServer();
    t = await registerTenant(server, 'skills-org');
  });
  after(() => server.cleanup());

  it('creates, replaces, reads and deletes a persona', async () => {
    const agent = await createAgent(server, t.operator, { name: 'persona-agent' });
    const none = await server.api('GET', `/api/agents/${agent.id}/persona`, { key: t.viewer });
    assert.equal(none.status, 404);

    const first = await server.api('PUT', `/api/agents/${agent.id}/persona`, { key: t.operator, body: { archetype: 'reviewer', traits: ['skeptical', 'concise'] } });
    assert.equal(first.status, 201);
    assert.deepEqual({ ...first.body, createdAt: undefined, updatedAt: undefined }, { agentId: agent.id, archetype: 'reviewer', traits: ['skeptical', 'concise'], createdAt: undefined, updatedAt: undefined });
    const second = await server.api('PUT', `/api/agents/${agent.id}/persona`, { key: t.operator, body: { archetype: 'mentor' } });
    assert.equal(second.status, 200);
    assert.deepEqual(second.body.traits, []);
    assert.equal(second.body.createdAt, first.body.createdAt);
    assert.equal((await server.api('GET', `/api/agents/${agent.id}/persona`, { key: t.viewer })).body.archetype, 'mentor');

    for (const body of [{}, { archetype: 'wizard' }, { archetype: 'mentor', traits: 'kind' }, { archetype: 'mentor', traits: ['a', 'a'] }, { archetype: 'mentor', traits: [''] }, { archetype: 'mentor', mood: 'x' }]) {
      const res = await server.api('PUT', `/api/agents/${agent.id}/persona`, { key: t.operator, body });
      assert.equal(res.status, 400, JSON.stringify(body));
      assert.equal(res.body.code, 'VALIDATION_ERROR');
    }
    assert.equal((await server.api('PUT', `/api/agents/${agent.id}/persona`, { key: t.viewer, body: { archetype: 'builder' } })).status, 403);
    assert.equal((await server.api('PUT', '/api/agents/unknown/persona', { key: t.operator, body: { archetype: 'builder' } })).status, 404);

    assert.equal((await server.api('DELETE', `/api/agents/${agent.id}/persona`, { key: t.operator })).status, 204);
    assert.equal((await server.api('DELETE', `/api/agents/${agent.id}/persona`, { key: t.operator })).status, 404);
    assert.equal((await server.api('GET', `/api/agents/${agent.id}/persona`, { key: t.operator })).status, 404);
  });

  it('manages skill bundles and refuses bad ones', async () => {
    const created = await server.api('POST', '/api/skill-bundles', { key: t.operator, body: { name: 'web', description: 'Web research', tools: ['WebFetch', 'svc_save_memory'], prompts: ['Cite sources.'] } });
    assert.equal(created.status, 201);
    assert.equal(created.body.preset, null);
    const id = created.body.id;
    assert.deepEqual((await server.api('GET', `/api/skill-bundles/${id}`, { key: t.viewer })).body, created.body);

    const updated = await server.api('PUT', `/api/skill-bundles/${id}`, { key: t.operator, body: { prompts: ['Cite sources.', 'Prefer primary sources.'] } });
    assert.equal(updated.status, 200);
    assert.equal(updated.body.prompts.length, 2);
    assert.deepEqual(updated.body.tools, ['WebFetch', 'svc_save_memory']);

    const list = await server.api('GET', '/api/skill-bundles?search=we', { key: t.viewer });
    assert.deepEqual(list.body.bundles.map((b: any) => b.name), ['web']);
    assert.equal((await server.api('POST', '/api/skill-bundles', { key: t.operator, body: { name: 'web' } })).status, 409);

    for (const body of [{}, { name: 'x', tools: 'Read' }, { name: 'x', tools: ['has space'] }, { name: 'x', prompts: [''] }, { name: 'x', prompts: [7] }, { name: 'x', extra: true }]) {
      const res = await server.api('POST', '/api/skill-bundles', { key: t.operator, body });
      assert.equal(res.status, 400, JSON.stringify(body));
    }
    assert.equal((await server.api('PUT', `/api/skill-bundles/${id}`, { key: t.operator, body: {} })).status, 400);
    assert.equal((await server.api('POST', '/api/skill-bundles', { key: t.viewer, body: { name: 'v' } })).status, 403);
    assert.equal((await server.api('GET', '/api/skill-bundles/nope', { key: t.viewer })).status, 404);
    assert.equal((await server.api('PUT', '/api/skill-bundles/nope', { key: t.operator, body: { name: 'z' } })).status, 404);
    assert.equal((await server.api('DELETE', '/api/skill-bundles/nope', { key: t.operator })).status, 404);
  });

  it('lists presets and clones them into tenant-owned bundles', async () => {
    const presets = await server.api('GET', '/api/skill-bundles/presets', { key: t.viewer });
    assert.equal(presets.status, 200);
    const names = presets.body.presets.map((p: any) => p.name);
    for (const name of ['code-reviewer', 'researcher', 'devops']) assert.ok(names.includes(name), name);

    const clone = await server.api('POST', '/api/skill-bundles/presets/code-reviewer/clone', { key: t.operator });
    assert.equal(clone.status, 201);
    assert.equal(clone.body.name, 'code-reviewer');
    assert.equal(clone.body.preset, 'code-reviewer');
    const preset = presets.body.presets.find((p: any) => p.name === 'code-reviewer');
    assert.deepEqual(clone.body.tools, preset.tools);
    assert.deepEqual(clone.body.prompts, preset.prompts);

    const again = await server.api('POST', '/api/skill-bundles/presets/code-reviewer/clone', { key: t.operator, body: {} });
    assert.equal(again.status, 409);
    const named = await server.api('POST', '/api/skill-bundles/presets/code-reviewer/clone', { key: t.operator, body: { name: 'strict-reviewer' } });
    assert.equal(named.status, 201);
    const edited = await server.api('PUT', `/api/skill-bundles/${named.body.id}`, { key: t.operator, body: { tools: ['Read'] } });
    assert.deepEqual(edited.body.tools, ['Read']);
    assert.deepEqual((await server.api('GET', '/api/skill-bundles/presets', { key: t.viewer })).body.presets.find((p: any) => p.name === 'code-reviewer').tools, preset.tools);

    const unknown = await server.api('POST', '/api/skill-bundles/presets/astrologer/clone', { key: t.operator });
    assert.equal(unknown.status, 404);
    assert.match(unknown.body.error, /code-reviewer/);
    assert.equal((await server.api('POST', '/api/skill-bundles/presets/devops/clone', { key: t.operator, body: { name: 5 } })).status, 400);
    assert.equal((await server.api('POST', '/api/skill-bundles/presets/devops/clone', { key: t.viewer })).status, 403);
  });

  it('assigns bundles to an agent, validates them, and drops a deleted bundle from the assignment', async () => {
    const agent = await createAgent(server, t.operator, { name: 'skilled' });
    const a = (await server.api('POST', '/api/skill-bundles/presets/researcher/clone', { key: t.operator })).body;
    const b = (await server.api('POST', '/api/skill-bundles/presets/devops/clone', { key: t.operator })).body;
    assert.deepEqual((await server.api('GET', `/api/agents/${agent.id}/skills`, { key: t.viewer })).body, { agentId: agent.id, bundleIds: [], bundles: [] });

    const set = await server.api('PUT', `/api/agents/${agent.id}/skills`, { key: t.operator, body: { bundleIds: [b.id, a.id] } });
    assert.equal(set.status, 200);
    assert.deepEqual(set.body.bundleIds, [b.id, a.id]);
    assert.deepEqual(set.body.bundles.map((x: any) => x.name), ['devops', 'researcher']);

    const unknown = await server.api('PUT', `/api/agents/${agent.id}/skills`, { key: t.operator, body: { bundleIds: [a.id, 'missing-bundle'] } });
    assert.equal(unknown.status, 400);
    assert.match(unknown.body.error, /missing-bundle/);
    assert.deepEqual((await server.api('GET', `/api/agents/${agent.id}/skills`, { key: t.viewer })).body.bundleIds, [b.id, a.id]);
    for (const body of [{}, { bundleIds: 'x' }, { bundleIds: [a.id, a.id] }, { bundleIds: [1] }]) {
      assert.equal((await server.api('PUT', `/api/agents/${agent.id}/skills`, { key: t.operator, body })).status, 400, JSON.stringify(body));
    }
    assert.equal((await server.api('PUT', `/api/agents/${agent.id}/skills`, { key: t.viewer, body: { bundleIds: [] } })).status, 403);
    assert.equal((await server.api('GET', '/api/agents/none/skills', { key: t.viewer })).status, 404);

    assert.equal((await server.api('DELETE', `/api/skill-bundles/${b.id}`, { key: t.operator })).status, 204);
    assert.deepEqual((await server.api('GET', `/api/agents/${agent.id}/skills`, { key: t.viewer })).body.bundleIds, [a.id]);
  });

  it('publishes an A2A agent card with the agent\'s skills', async () => {
    const agent = await createAgent(server, t.operator, { name: 'carded', description: 'Reviews pull requests' });
    const bundle = (await server.api('POST', '/api/skill-bundles', { key: t.operator, body: { name: 'pr-review', description: 'Pull-request review', tools: ['Read'], prompts: ['Check tests.'] } })).body;
    await server.api('PUT', `/api/agents/${agent.id}/skills`, { key: t.operator, body: { bundleIds: [bundle.id] } });

    const card = await server.api('GET', `/api/agents/${agent.id}/agent-card`, { key: t.viewer });
    assert.equal(card.status, 200);
    assert.equal(card.body.name, 'carded');
    assert.equal(card.body.description, 'Reviews pull requests');
    // The agent's own A2A endpoint, served by the a2a extension (loaded here).
    assert.match(card.body.url, new RegExp(`^http://127\\.0\\.0\\.1:\\d+/a2a/agents/${agent.id}$`));
    assert.equal(card.body.preferredTransport, 'JSONRPC');
    assert.equal(card.body.protocolVersion, '0.3.0');
    assert.equal(typeof card.body.version, 'string');
    // The a2a extension streams and pushes on it.
    assert.deepEqual(card.body.capabilities, { streaming: true, pushNotifications: true, stateTransitionHistory: false });
    assert.deepEqual(card.body.defaultInputModes, ['text/plain']);
    assert.deepEqual(card.body.defaultOutputModes, ['text/plain']);
    assert.deepEqual(card.body.skills, [{ id: bundle.id, name: 'pr-review', description: 'Pull-request review', tags: ['Read'], examples: ['Check tests.'] }]);
    assert.equal((await server.api('GET', '/api/agents/nobody/agent-card', { key: t.viewer })).status, 404);
  });
});
