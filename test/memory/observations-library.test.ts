import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { agentToken, callTool, createAgent, mcpClient, registerTenant, type Tenant } from '../agents/support.js';
import type { TestServer } from '../helpers/server.js';
import { extensionDb } from '../helpers/stored.js';
import { startMemoryServer } from './support.js';

describe('memory: observations that graduate, and the tenant\'s shared library', () => {
  let server: TestServer;
  let a: Tenant;
  let b: Tenant;
  let scout: Client;
  let peer: Client;
  let stranger: Client;
  let scoutAgent: any;
  let strangerAgent: any;
  before(async () => {
    server = await startMemoryServer();
    a = await registerTenant(server, 'observe-org-a');
    b = await registerTenant(server, 'observe-org-b');
    scoutAgent = await createAgent(server, a.operator, { name: 'scout' });
    const peerAgent = await createAgent(server, a.operator, { name: 'peer' });
    strangerAgent = await createAgent(server, b.operator, { name: 'stranger' });
    scout = await mcpClient(server, await agentToken(server, a.operator, scoutAgent.id));
    peer = await mcpClient(server, await agentToken(server, a.operator, peerAgent.id));
    stranger = await mcpClient(server, await agentToken(server, b.operator, strangerAgent.id));
  });
  after(async () => {
    await Promise.all([scout, peer, stranger].map((c) => c?.close()));
    await server.cleanup();
  });

  it('reinforces an observation until it graduates into a memory', async () => {
    const recorded = await callTool(scout, 'svc_record_observation', { content: 'The owner reviews PRs on Monday mornings.', source: 'standup', tags: ['habits'] });
    assert.equal(recorded.isError, false, recorded.text);
    const { observation } = recorded.value;
    assert.equal(recorded.value.reinforced, false);
    assert.deepEqual([observation.score, observation.accessCount, observation.status, observation.source, observation.tags], [1, 0, 'active', 'standup', ['habits']]);

    const same = await callTool(scout, 'svc_record_observation', { content: 'the owner reviews PRs on monday mornings!' });
    assert.equal(same.value.reinforced, true, 'the same words reinforce the active observation');
    assert.equal(same.value.observation.id, observation.id);
    assert.deepEqual([same.value.observation.score, same.value.observation.accessCount, same.value.observation.status], [2, 1, 'active']);

    const boosted = await callTool(scout, 'svc_boost_observation', { id: observation.id });
    assert.equal(boosted.isError, false, boosted.text);
    const graduated = boosted.value.observation;
    assert.deepEqual([graduated.score, graduated.accessCount, graduated.status], [3, 2, 'graduated']);
    assert.equal(graduated.memoryKey, `observation:${observation.id}`);
    assert.ok(graduated.graduatedAt);

    const memory = await callTool(scout, 'svc_recall_memory', { key: graduated.memoryKey });
    assert.equal(memory.value.memory.content, 'The owner reviews PRs on Monday mornings.');
    const again = await callTool(scout, 'svc_boost_observation', { id: observation.id });
    assert.equal(again.isError, true);
    assert.match(again.text, /is graduated \(memory "observation:.+"\); only active observations can be boosted/);
    assert.match((await callTool(scout, 'svc_dismiss_observation', { id: observation.id })).text, /has graduated into memory/);
    const listed = await callTool(scout, 'svc_list_observations', { status: 'graduated' });
    assert.deepEqual(listed.value.observations.map((o: any) => o.id), [observation.id]);
  });

  it('follows the tenant\'s thresholds, dismisses, lists and counts', async () => {
    const settings = await server.api('PUT', '/api/settings/memory', { key: a.operator, body: { observationScoreThreshold: 10, observationAccessThreshold: 1 } });
    assert.equal(settings.status, 200, settings.text);
    assert.deepEqual(settings.body, { observationScoreThreshold: 10, observationAccessThreshold: 1, contextMemories: 5 });
    assert.equal((await server.api('GET', '/api/settings/memory', { key: b.viewer })).body.observationScoreThreshold, 3, 'tenant B keeps the defaults');
    assert.equal((await server.api('PUT', '/api/settings/memory', { key: a.viewer, body: { contextMemories: 1 } })).status, 403);
    for (const body of [{}, { observationScoreThreshold: -1 }, { contextMemories: 21 }, { unknown: 1 }, { observationAccessThreshold: 1.5 }]) {
      const bad = await server.api('PUT', '/api/settings/memory', { key: a.operator, body });
      assert.equal(bad.status, 400, JSON.stringify(body));
      assert.equal(bad.body.code, 'VALIDATION_ERROR');
    }

    const slow = (await callTool(scout, 'svc_record_observation', { content: 'Builds are slow on Fridays' })).value.observation;
    const boosted = await callTool(scout, 'svc_boost_observation', { id: slow.id, amount: 5.5 });
    assert.deepEqual([boosted.value.observation.score, boosted.value.observation.status], [6.5, 'active'], 'below the score threshold of 10');
    const graduated = await callTool(scout, 'svc_boost_observation', { id: slow.id, amount: 3.5 });
    assert.equal(graduated.value.observation.status, 'graduated');

    // Boosts racing past the threshold graduate it once: one memory, and later boosts are refused.
    const raced = (await callTool(scout, 'svc_record_observation', { content: 'Racing boosts land once' })).value.observation;
    const replies = await Promise.all(Array.from({ length: 5 }, () => callTool(scout, 'svc_boost_observation', { id: raced.id, amount: 20 })));
    assert.ok(replies.some((r) => !r.isError && r.value.observation.status === 'graduated'));
    for (const r of replies.filter((r) => r.isError)) assert.match(r.text, /is graduated/);
    const racedMemories = await callTool(scout, 'svc_recall_memory', { query: 'racing boosts' });
    assert.deepEqual(racedMemories.value.memories.map((m: any) => m.key), [`observation:${raced.id}`]);

    const noise = (await callTool(scout, 'svc_record_observation', { content: 'The coffee machine beeped' })).value.observation;
    const dismissed = await callTool(scout, 'svc_dismiss_observation', { id: noise.id });
    assert.equal(dismissed.value.observation.status, 'dismissed');
    assert.match((await callTool(scout, 'svc_boost_observation', { id: noise.id })).text, /is dismissed/);
    const kept = (await callTool(scout, 'svc_record_observation', { content: 'Staging resets at midnight' })).value.observation;
    await callTool(scout, 'svc_boost_observation', { id: kept.id, amount: 2 });

    const active = await callTool(scout, 'svc_list_observations', {});
    assert.deepEqual(active.value.observations.map((o: any) => o.content), ['Staging resets at midnight']);
    const all = await callTool(scout, 'svc_list_observations', { status: 'all', limit: 2 });
    assert.equal(all.value.observations.length, 2);
    assert.equal(all.value.hasMore, true);
    const scores = all.value.observations.map((o: any) => o.score);
    assert.deepEqual(scores, [...scores].sort((x: number, y: number) => y - x), 'highest score first');

    const stats = await callTool(scout, 'svc_observation_stats', {});
    assert.deepEqual(
      { total: stats.value.total, active: stats.value.active, graduated: stats.value.graduated, dismissed: stats.value.dismissed, score: stats.value.averageActiveScore },
      { total: 5, active: 1, graduated: 3, dismissed: 1, score: 3 },
    );
    assert.deepEqual(stats.value.thresholds, { score: 10, accessCount: 1 });
  });

  it('keeps observations to their agent and refuses bad input', async () => {
    const mine = (await callTool(scout, 'svc_record_observation', { content: 'Only the scout saw this' })).value.observation;
    for (const other of [peer, stranger]) {
      assert.match((await callTool(other, 'svc_boost_observation', { id: mine.id })).text, /observation .+ not found/);
      assert.match((await callTool(other, 'svc_dismiss_observation', { id: mine.id })).text, /not found/);
      assert.deepEqual((await callTool(other, 'svc_list_observations', { status: 'all' })).value.observations, []);
      assert.equal((await callTool(other, 'svc_observation_stats', {})).value.total, 0);
    }
    assert.match((await callTool(scout, 'svc_boost_observation', { id: mine.id, amount: 0 })).text, /arguments\.amount must NOT be valid/);
    assert.match((await callTool(scout, 'svc_boost_observation', { id: mine.id, amount: 101 })).text, /arguments\.amount must be <= 100/);
    assert.match((await callTool(scout, 'svc_record_observation', { content: 'x'.repeat(4001) })).text, /arguments\.content must NOT have more than 4000 characters/);
    assert.match((await callTool(scout, 'svc_record_observation', { content: 'ok', tags: Array.from({ length: 21 }, (_, i) => `t${i}`) })).text, /arguments\.tags must NOT have more than 20 items/);
    assert.match((await callTool(scout, 'svc_list_observations', { status: 'lost' })).text, /arguments\.status must be one of/);
  });

  it('shares library notes between the agents of one tenant only', async () => {
    const written = await callTool(scout, 'svc_library_write', { name: 'Runbook: deploys', content: 'Deploy with make release; roll back with make undo.', tags: ['ops', 'deploy', 'ops'] });
    assert.equal(written.isError, false, written.text);
    assert.deepEqual([written.value.created, written.value.entry.tags, written.value.entry.authorAgentId], [true, ['ops', 'deploy'], scoutAgent.id]);
    await callTool(peer, 'svc_library_write', { name: 'Style guide', content: 'Two spaces; single quotes.', tags: ['code'] });
    await callTool(peer, 'svc_library_write', { name: 'On-call', content: 'Page the ops rotation for outages and deploy failures.', tags: ['ops'] });

    const read = await callTool(peer, 'svc_library_read', { name: 'Runbook: deploys' });
    assert.equal(read.value.content, 'Deploy with make release; roll back with make undo.');
    const byTag = await callTool(peer, 'svc_library_list', { tag: 'OPS' });
    assert.deepEqual(byTag.value.entries.map((e: any) => e.name).sort(), ['On-call', 'Runbook: deploys']);
    assert.ok(byTag.value.entries.every((e: any) => e.content === undefined), 'lists carry no contents');
    const byQuery = await callTool(scout, 'svc_library_list', { query: 'rotation outages' });
    assert.deepEqual(byQuery.value.entries.map((e: any) => e.name), ['On-call']);
    const both = await callTool(scout, 'svc_library_list', { tag: 'ops', query: 'release' });
    assert.deepEqual(both.value.entries.map((e: any) => e.name), ['Runbook: deploys']);
    const latest = await callTool(scout, 'svc_library_list', { limit: 1 });
    assert.deepEqual([latest.value.entries[0].name, latest.value.hasMore], ['On-call', true]);

    const updated = await callTool(peer, 'svc_library_write', { name: 'Style guide', content: 'Four spaces now.' });
    assert.deepEqual([updated.value.created, updated.value.entry.tags], [false, []]);

    assert.match((await callTool(stranger, 'svc_library_read', { name: 'Runbook: deploys' })).text, /library entry "Runbook: deploys" not found/);
    assert.deepEqual((await callTool(stranger, 'svc_library_list', { tag: 'ops' })).value.entries, []);
    assert.match((await callTool(stranger, 'svc_library_delete', { name: 'Runbook: deploys' })).text, /not found/);
    await callTool(stranger, 'svc_library_write', { name: 'Runbook: deploys', content: 'Tenant B has its own.' });
    assert.equal((await callTool(scout, 'svc_library_read', { name: 'Runbook: deploys' })).value.content, 'Deploy with make release; roll back with make undo.');

    assert.deepEqual((await callTool(peer, 'svc_library_delete', { name: 'Style guide' })).value, { deleted: 'Style guide' });
    assert.match((await callTool(scout, 'svc_library_read', { name: 'Style guide' })).text, /not found/);
    assert.match((await callTool(scout, 'svc_library_write', { name: 'huge', content: 'x'.repeat(262_145) })).text, /arguments\.content must NOT have more than 262144 characters/);
    assert.match((await callTool(scout, 'svc_library_write', { name: '', content: 'x' })).text, /arguments\.name must NOT have fewer than 1 characters/);
  });
  it('graduates atomically: a memory that cannot be saved leaves the observation active, to graduate later', async () => {
    const first = (await callTool(stranger, 'svc_record_observation', { content: 'Deploys wait for the green build' })).value.observation;
    assert.equal((await callTool(stranger, 'svc_record_observation', { content: 'Deploys wait for the green build' })).value.reinforced, true);
    // The memory database refuses this agent's new memories, as a full disk would.
    const db = extensionDb(server, 'memory');
    const pg = server.databaseUrl !== null;
    try {
      if (pg) {
        await db.raw("CREATE FUNCTION refuse_memory() RETURNS trigger AS $$ BEGIN RAISE EXCEPTION 'the disk is full'; END $$ LANGUAGE plpgsql");
        await db.raw(`CREATE TRIGGER refuse_memories BEFORE INSERT ON memories FOR EACH ROW WHEN (NEW.owner_id = '${strangerAgent.id}') EXECUTE FUNCTION refuse_memory()`);
      } else {
        await db.raw(`CREATE TRIGGER refuse_memories BEFORE INSERT ON memories WHEN NEW.owner_id = '${strangerAgent.id}' BEGIN SELECT RAISE(ABORT, 'the disk is full'); END`);
      }
      const failed = await callTool(stranger, 'svc_boost_observation', { id: first.id });
      assert.equal(failed.isError, true, failed.text);
      const [kept] = (await callTool(stranger, 'svc_list_observations', { status: 'all' })).value.observations.filter((o: any) => o.id === first.id);
      assert.deepEqual([kept.status, kept.memoryKey, kept.graduatedAt, kept.score, kept.accessCount], ['active', null, null, 3, 2], 'the boost counts; the graduation did not happen');
      assert.equal((await callTool(stranger, 'svc_recall_memory', { key: `observation:${first.id}` })).isError, true);
    } finally {
      await db.raw(pg ? 'DROP TRIGGER refuse_memories ON memories' : 'DROP TRIGGER refuse_memories');
      if (pg) await db.raw('DROP FUNCTION refuse_memory()');
      await db.destroy();
    }
    const later = await callTool(stranger, 'svc_boost_observation', { id: first.id });
    assert.equal(later.value.observation.status, 'graduated', later.text);
    assert.equal((await callTool(stranger, 'svc_recall_memory', { key: `observation:${first.id}` })).value.memory.content, 'Deploys wait for the green build');
  });
});
