import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { callAs, FIXTURES } from '../agents/support.js';
import { startHarness, type Harness } from '../sessions/harness.js';
import { saveMemory } from './support.js';

describe('memory: an agent\'s memories in a new session\'s system prompt', () => {
  let h: Harness;
  before(async () => {
    h = await startHarness({ anthropic: () => 'Noted.', env: { ROOST_EXTENSION_DIRS: FIXTURES } });
  });
  after(() => h.close());

  /** Starts a session with `prompt`, waits for its answer, and returns the system prompt the model got. */
  async function systemPromptOf(agentId: string, prompt: string): Promise<string> {
    const session = await h.session({ agentId, initialPrompt: prompt });
    await h.until(session.id, (s) => s.turns >= 1);
    const request = h.anthropic.requests.filter((r) => r.path === '/v1/messages' && JSON.stringify(r.body.messages).includes(prompt)).at(-1);
    assert.ok(request, `the model was asked "${prompt}"`);
    await h.server.api('POST', `/api/sessions/${session.id}/stop`);
    return typeof request.body.system === 'string' ? request.body.system : request.body.system.map((b: any) => b.text).join('');
  }

  // First: it needs a server whose memory, mcp-servers and feedback extensions have never started.
  // (feedback's answer is the kernel's too, but the session's end then wakes feedback to count it.)
  it('starts a fresh server\'s session without starting memory or mcp-servers (nothing stored there, so the kernel answers), then carries the first memory saved', async () => {
    const states = async () => Object.fromEntries(((await h.server.api('GET', '/api/plugins')).body.plugins as Array<{ name: string; state: string }>)
      .filter((p) => ['memory', 'mcp-servers'].includes(p.name)).map((p) => [p.name, p.state]));
    const agent = await h.agent({ systemPrompt: 'You start fresh.' });
    assert.equal(await systemPromptOf(agent.id, 'Anything to remember?'), 'You start fresh.');
    assert.deepEqual(await states(), { memory: 'stopped', 'mcp-servers': 'stopped' });
    await saveMemory(h.server, undefined, agent.id, 'first-note', 'The first thing remembered.');
    assert.equal((await states()).memory, 'running');
    assert.equal(await systemPromptOf(agent.id, 'And now?'), 'You start fresh.\n\n## Your memories\nNotes you saved in earlier sessions (recall any of them in full with svc_recall_memory):\n- first-note: The first thing remembered.');
  });

  it('adds the memories matching the first prompt, then the most used, to the agent\'s own prompt', async () => {
    const agent = await h.agent({ systemPrompt: 'You are the release manager.' });
    await saveMemory(h.server, undefined, agent.id, 'kangaroo-project', 'The kangaroo project ships on the 3rd.');
    await saveMemory(h.server, undefined, agent.id, 'owner-name', 'The owner is called Priya.');
    for (let i = 0; i < 6; i++) await saveMemory(h.server, undefined, agent.id, `filler-${i}`, `Unrelated note number ${i}.`);
    await h.server.api('POST', '/api/mcp/recall-memory', { body: { agentId: agent.id, key: 'owner-name' } }); // now the most used

    const system = await systemPromptOf(agent.id, 'When does the kangaroo project ship?');
    assert.ok(system.startsWith('You are the release manager.\n\n## Your memories\n'), system);
    const lines = system.split('\n').filter((l) => l.startsWith('- '));
    assert.equal(lines.length, 5, 'five memories by default');
    assert.equal(lines[0], '- kangaroo-project: The kangaroo project ships on the 3rd.', 'the matching memory first');
    assert.equal(lines[1], '- owner-name: The owner is called Priya.', 'then the most used');
  });

  it('carries as many as the agent or its tenant says, and none for an agent without memories', async () => {
    const agent = await h.agent({ systemPrompt: 'You keep notes.' });
    await saveMemory(h.server, undefined, agent.id, 'alpha', 'First note about alpacas.');
    await saveMemory(h.server, undefined, agent.id, 'beta', 'Second note about bees.');

    assert.equal((await h.server.api('PUT', '/api/settings/memory', { body: { contextMemories: 1 } })).status, 200);
    const one = await systemPromptOf(agent.id, 'Tell me about alpacas');
    assert.deepEqual(one.split('\n').filter((l) => l.startsWith('- ')), ['- alpha: First note about alpacas.']);

    const off = await h.server.api('PUT', `/api/agents/${agent.id}/memory-settings`, { body: { contextMemories: 0 } });
    assert.equal(off.status, 200, off.text);
    assert.deepEqual(off.body, { agentId: agent.id, contextMemories: 0, effectiveContextMemories: 0 });
    assert.equal(await systemPromptOf(agent.id, 'Tell me about bees'), 'You keep notes.');

    const back = await h.server.api('PUT', `/api/agents/${agent.id}/memory-settings`, { body: { contextMemories: null } });
    assert.equal(back.body.effectiveContextMemories, 1, 'back to the tenant\'s setting');
    assert.equal((await h.server.api('PUT', `/api/agents/${agent.id}/memory-settings`, { body: { contextMemories: 50 } })).status, 400);
    assert.equal((await h.server.api('GET', '/api/agents/nobody/memory-settings')).status, 404);
    await h.server.api('PUT', '/api/settings/memory', { body: { contextMemories: 5 } });

    const blank = await h.agent({ systemPrompt: 'Nothing remembered.' });
    assert.equal(await systemPromptOf(blank.id, 'Hello there'), 'Nothing remembered.');
  });

  it('answers the internal context route to extensions, with checked limits', async () => {
    const agent = await h.agent();
    await saveMemory(h.server, undefined, agent.id, 'gamma', 'A note about gamma rays.');
    const context = await callAs(h.server, undefined, 'GET', `/api/internal/memory/agents/${agent.id}/context?query=gamma&limit=3`);
    assert.equal(context.status, 200);
    assert.deepEqual(context.body.memories, [{ key: 'gamma', content: 'A note about gamma rays.', truncated: false }]);
    assert.match(context.body.text, /^## Your memories\n/);
    const bad = await callAs(h.server, undefined, 'GET', `/api/internal/memory/agents/${agent.id}/context?limit=21`);
    assert.equal(bad.status, 400);
  });

  it('lets sessions go on without memories when the memory extension is not loaded', async () => {
    const agent = await h.agent({ systemPrompt: 'Plain prompt.' });
    await saveMemory(h.server, undefined, agent.id, 'delta', 'A note about deltas.');
    assert.equal((await h.server.api('POST', '/api/plugins/memory/unload')).status, 200);
    try {
      assert.equal(await systemPromptOf(agent.id, 'Tell me about deltas'), 'Plain prompt.');
    } finally {
      assert.equal((await h.server.api('POST', '/api/plugins/load', { body: { name: 'memory' } })).status, 201);
    }
  });
});
