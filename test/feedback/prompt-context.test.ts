// Feedback's outcome context reaches a prompt only where the agent opted in: a new session's system
// prompt (what the fake model provider receives) carries the tenant's recent outcomes after
// PUT /api/agents/:id/feedback-settings {promptContext: true}, and not before.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { waitFor } from '../helpers/wait.js';
import { startHarness, type Harness } from '../sessions/harness.js';

describe('feedback: outcome context in prompts, opted in', () => {
  let h: Harness;
  before(async () => {
    h = await startHarness({ anthropic: () => 'Noted.' });
    // Wake the feedback extension so it hears the sessions that follow.
    assert.equal((await h.server.api('GET', '/api/feedback/metrics')).status, 200);
  });
  after(() => h?.close());

  /** Starts a session with `prompt`, waits for its answer, stops it, and returns the system prompt the model got. */
  async function systemPromptOf(agentId: string, prompt: string): Promise<string> {
    const session = await h.session({ agentId, initialPrompt: prompt });
    await h.until(session.id, (s) => s.turns >= 1 && !s.busy);
    const request = h.anthropic.requests.filter((r) => r.path === '/v1/messages' && JSON.stringify(r.body.messages).includes(prompt)).at(-1);
    assert.ok(request, `the model was asked "${prompt}"`);
    await h.server.api('POST', `/api/sessions/${session.id}/stop`);
    return typeof request.body.system === 'string' ? request.body.system : request.body.system.map((b: any) => b.text).join('');
  }

  it('leaves the context out until the agent opts in, then carries it', async () => {
    const agent = await h.agent({ systemPrompt: 'You run the nightly jobs.' });
    const first = await systemPromptOf(agent.id, 'First job, please');
    assert.equal(first, 'You run the nightly jobs.', 'no outcome context without the opt-in');
    await waitFor('the first session to be counted', async () => ((await h.server.api('GET', '/api/feedback/metrics')).body.sessions.completed >= 1 ? true : undefined));
    const context = (await h.server.api('GET', '/api/feedback/context')).body.context;
    assert.match(context, /^Outcomes of the last 7 days: /);

    assert.deepEqual((await h.server.api('GET', `/api/agents/${agent.id}/feedback-settings`)).body, { agentId: agent.id, promptContext: false });
    const on = await h.server.api('PUT', `/api/agents/${agent.id}/feedback-settings`, { body: { promptContext: true } });
    assert.equal(on.status, 200, on.text);
    assert.deepEqual(on.body, { agentId: agent.id, promptContext: true });

    const second = await systemPromptOf(agent.id, 'Second job, please');
    assert.ok(second.startsWith('You run the nightly jobs.\n\n## Recent outcomes\nOutcomes of the last 7 days: '), second);

    const other = await h.agent({ systemPrompt: 'I did not opt in.' });
    assert.equal(await systemPromptOf(other.id, 'Another agent asks'), 'I did not opt in.', 'the opt-in is the agent\'s own');

    const off = await h.server.api('PUT', `/api/agents/${agent.id}/feedback-settings`, { body: { promptContext: false } });
    assert.equal(off.status, 200);
    assert.equal(await systemPromptOf(agent.id, 'Third job, please'), 'You run the nightly jobs.');
  });

  it('refuses an unknown agent and a bad body', async () => {
    assert.equal((await h.server.api('GET', '/api/agents/nobody/feedback-settings')).status, 404);
    assert.equal((await h.server.api('PUT', '/api/agents/nobody/feedback-settings', { body: { promptContext: true } })).status, 404);
    const agent = await h.agent();
    assert.equal((await h.server.api('PUT', `/api/agents/${agent.id}/feedback-settings`, { body: { promptContext: 'yes' } })).status, 400);
  });
});
