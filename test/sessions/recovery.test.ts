import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { alive, gone, startHarness, type Harness } from './harness.js';

describe('session recovery: provider outages, credits, server restarts', () => {
  let h: Harness;
  before(async () => {
    h = await startHarness();
  });
  after(() => h.close());

  // The two outages wait out real backoffs (6 s each): they run side by side, each agent told apart by its
  // system prompt, so the file waits once.
  describe('provider outages', { concurrency: 2 }, () => {
    const healthy = new Map<number, boolean>();
    before(() => {
      h.anthropic.setScript((req) => {
        const status = JSON.stringify(req.body.system ?? '').includes('outage 503') ? 503 : 429;
        return healthy.get(status) ? 'Back in business.' : { error: { status } };
      });
    });

    for (const [status, code] of [[503, 'PROVIDER_UNAVAILABLE'], [429, 'RATE_LIMITED']] as const) {
      it(`pauses on a provider ${status}, retries after 5 then 15 units, and resumes when the provider is back`, async () => {
        const unit = 300;
        const agent = await h.agent({ permissionMode: 'full-auto', systemPrompt: `You are the agent of outage ${status}.` });
        const session = await h.session({ agentId: agent.id, resumeUnitMs: unit });
        const runner = await h.hostPid(session.pid);
        const ws = await h.subscribe(session.id);
        await h.server.api('POST', `/api/sessions/${session.id}/messages`, { body: { content: 'are you there?' } });
        const paused = await ws.next((m) => m.type === 'session_status' && m.status === 'paused', 10_000);
        assert.equal(paused.code, code);
        assert.match(paused.reason, new RegExp(`answered ${status}`));
        const first = await h.get(session.id);
        assert.equal(first.status, 'paused');
        assert.equal(first.pid, null, 'a paused session holds no runner');
        assert.ok(!alive(runner));
        assert.equal(first.resumeAttempts, 1);
        // The first automatic retry meets the outage again: the next one waits 15 units.
        await ws.next((m) => m.type === 'session_status' && m.status === 'resumed', 10_000);
        await ws.next((m) => m.type === 'session_status' && m.status === 'paused', 10_000);
        assert.equal((await h.get(session.id)).resumeAttempts, 2);
        healthy.set(status, true);
        const done = await h.until(session.id, (s) => s.status === 'running' && s.turns === 1 && !s.busy, 15_000);
        assert.equal(done.resumeAttempts, 0);
        assert.equal(done.nextResumeAt, null);
        assert.equal(done.pendingMessages, 0);
        assert.equal((await h.messages(session.id)).at(-1).content, 'Back in business.');
        const pauses = (await h.events(session.id)).filter((e: any) => e.type === 'pause');
        assert.deepEqual(pauses.map((e: any) => [e.attempt, e.delayMs, e.code]), [[1, 5 * unit, code], [2, 15 * unit, code]]);
        for (const p of pauses) assert.equal(Date.parse(p.nextResumeAt) - Date.parse(p.at), p.delayMs);
        const resumes = (await h.events(session.id)).filter((e: any) => e.type === 'resume');
        assert.deepEqual(resumes.map((e: any) => [e.trigger, e.from]), [['auto', 'paused'], ['auto', 'paused']]);
        await h.server.api('POST', `/api/sessions/${session.id}/stop`);
      });
    }
  });

  it('a paused session resumes on request (POST /resume), and not when it is running', async () => {
    h.anthropic.setScript([{ error: { status: 500 } }, 'Resumed by hand.']);
    const agent = await h.agent({ permissionMode: 'full-auto' });
    const session = await h.session({ agentId: agent.id, initialPrompt: 'hi' });
    await h.until(session.id, (s) => s.status === 'paused');
    const resumed = await h.server.api('POST', `/api/sessions/${session.id}/resume`);
    assert.equal(resumed.status, 200);
    assert.equal(resumed.body.status, 'running');
    await h.until(session.id, (s) => s.turns === 1 && !s.busy);
    assert.equal((await h.server.api('POST', `/api/sessions/${session.id}/resume`)).status, 409);
    await h.server.api('POST', `/api/sessions/${session.id}/stop`);
  });

  it('does not start a session without credits, and pauses one when the daily cap is reached', async () => {
    const agent = await h.agent({ permissionMode: 'full-auto' });
    const before = (await h.server.api('GET', '/api/sessions?limit=1')).body.total;
    const expensive = await h.server.api('PUT', '/api/settings/credits', { body: { reservePerTurn: 1_000_000_000_000 } });
    assert.equal(expensive.status, 200);
    try {
      const refused = await h.server.api('POST', '/api/sessions', { body: { agentId: agent.id, initialPrompt: 'hi' } });
      assert.equal(refused.status, 409);
      assert.equal(refused.body.code, 'INSUFFICIENT_CREDITS');
      assert.match(refused.body.error, /fund the agent/);
      assert.equal((await h.server.api('GET', '/api/sessions?limit=1')).body.total, before, 'nothing was stored');
    } finally {
      await h.server.api('PUT', '/api/settings/credits', { body: { reservePerTurn: 100_000 } });
    }

    h.anthropic.setScript(['First.', 'Second, after the cap was lifted.']);
    const session = await h.session({ agentId: agent.id, initialPrompt: 'one', resumeUnitMs: 20 });
    const first = await h.until(session.id, (s) => s.turns === 1 && !s.busy);
    assert.ok(first.cost > 0);
    assert.equal((await h.server.api('PUT', `/api/agents/${agent.id}/spending-cap`, { body: { dailyLimit: 0 } })).status, 200);
    await h.server.api('POST', `/api/sessions/${session.id}/messages`, { body: { content: 'two' } });
    const paused = await h.until(session.id, (s) => s.status === 'paused');
    assert.equal(paused.statusCode, 'DAILY_CAP_REACHED');
    assert.match(paused.statusReason, /daily cap/);
    assert.equal(paused.pendingMessages, 1);
    assert.equal((await h.server.api('DELETE', `/api/agents/${agent.id}/spending-cap`)).status, 204);
    const resumed = await h.until(session.id, (s) => s.status === 'running' && s.turns === 2 && !s.busy, 15_000);
    assert.equal(resumed.pendingMessages, 0);
    assert.equal((await h.messages(session.id)).at(-1).content, 'Second, after the cap was lifted.');
    await h.server.api('POST', `/api/sessions/${session.id}/stop`);
  });

  it('comes back after a server restart: the interrupted turn is answered, paused sessions stay paused', async () => {
    h.anthropic.setScript(['Before the restart.', { text: 'never delivered', delayMs: 10_000 }]);
    const agent = await h.agent({ permissionMode: 'full-auto' });
    const session = await h.session({ agentId: agent.id, initialPrompt: 'remember the word heron' });
    await h.until(session.id, (s) => s.turns === 1 && !s.busy);
    await h.server.api('POST', `/api/sessions/${session.id}/messages`, { body: { content: 'what was the word?' } });
    await h.until(session.id, (s) => s.busy);

    const outage = await h.session({ agentId: (await h.agent()).id, resumeUnitMs: 600_000 });
    h.anthropic.setScript([{ error: { status: 503 } }]);
    await h.server.api('POST', `/api/sessions/${outage.id}/messages`, { body: { content: 'hi' } });
    const pausedBefore = await h.until(outage.id, (s) => s.status === 'paused');

    // Runner pids are local to the sessions sandbox, which the restart replaces: compare host pids.
    const oldRunner = await h.hostPid((await h.get(session.id)).pid);
    h.anthropic.setScript(['The word was heron.']);
    await h.restart();
    assert.ok(await gone(oldRunner), 'the runner went down with the server');
    const back = await h.until(session.id, (s) => s.status === 'running' && s.turns === 2 && !s.busy, 20_000);
    const newRunner = await h.hostPid(back.pid);
    assert.notEqual(newRunner, oldRunner);
    assert.ok(alive(newRunner));
    assert.equal((await h.messages(session.id)).at(-1).content, 'The word was heron.');
    const restarted = (await h.events(session.id)).find((e: any) => e.type === 'runner_started' && e.reason === 'restart');
    assert.match(restarted.summary, /remember the word heron/);
    const request = h.anthropic.requests.filter((r) => r.path === '/v1/messages').at(-1)!.body;
    assert.match(request.system, /Before the restart\./);
    assert.equal(request.messages.at(-1).content[0].text, 'what was the word?');

    const stillPaused = await h.get(outage.id);
    assert.equal(stillPaused.status, 'paused');
    assert.equal(stillPaused.nextResumeAt, pausedBefore.nextResumeAt);
  });
});
