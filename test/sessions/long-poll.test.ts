// GET /api/sessions/:id/events?waitMs: with nothing past `after` yet, the read waits for the session's
// next event (or, with `until`, the next of the types named) and answers as soon as it comes; with events
// already there, or a bad waitMs, it does not wait.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startHarness, type Harness } from './harness.js';

describe('session events long poll', () => {
  let h: Harness;
  before(async () => {
    h = await startHarness({ anthropic: ['First.', { text: 'Second, after a while.', delayMs: 600 }, { text: 'Third.', delayMs: 300 }] });
  });
  after(() => h?.close());

  it('answers a waiting read as soon as the next event comes, well before its deadline', async () => {
    const agent = await h.agent();
    const session = await h.session({ agentId: agent.id, initialPrompt: 'one' });
    await h.until(session.id, (s) => s.turns === 1 && !s.busy);
    const last = (await h.events(session.id)).at(-1).seq;

    const started = Date.now();
    const reading = h.server.api('GET', `/api/sessions/${session.id}/events?after=${last}&waitMs=15000`);
    await new Promise((resolve) => setTimeout(resolve, 200));
    const posted = await h.server.api('POST', `/api/sessions/${session.id}/messages`, { body: { content: 'two' } });
    assert.equal(posted.status, 202);
    const read = await reading;
    const tookMs = Date.now() - started;
    assert.equal(read.status, 200, read.text);
    assert.ok(read.body.events.length >= 1);
    assert.equal(read.body.events[0].seq, last + 1);
    assert.equal(read.body.events[0].type, 'user_message');
    assert.ok(tookMs < 10_000, `answered when the event came (${tookMs} ms), well before waitMs`);

    const already = await h.server.api('GET', `/api/sessions/${session.id}/events?after=0&waitMs=15000`);
    assert.ok(already.body.events.length > 3, 'events past `after` are answered at once');
    assert.equal((await h.server.api('GET', `/api/sessions/${session.id}/events?waitMs=99999`)).status, 400);
  });

  it('with until, wakes only for an event of the types named, not for each event before it', async () => {
    const agent = await h.agent();
    const session = await h.session({ agentId: agent.id });
    const last = (await h.events(session.id)).at(-1).seq;
    const reading = h.server.api('GET', `/api/sessions/${session.id}/events?after=${last}&waitMs=15000&until=turn_end,status`);
    assert.equal((await h.server.api('POST', `/api/sessions/${session.id}/messages`, { body: { content: 'three' } })).status, 202);
    const read = await reading;
    assert.equal(read.status, 200, read.text);
    const types = read.body.events.map((e: any) => e.type);
    assert.equal(types[0], 'user_message');
    assert.ok(types.includes('turn_end'), `the read answered at the turn's end, not at its first event: ${types.join(', ')}`);
    assert.ok(types.indexOf('assistant_message') < types.indexOf('turn_end'));

    for (const until of ['TURN_END', 'turn_end,', 'a;b', Array(21).fill('x').join(',')]) {
      const bad = await h.server.api('GET', `/api/sessions/${session.id}/events?waitMs=10&until=${encodeURIComponent(until)}`);
      assert.equal(bad.status, 400, until);
      assert.match(bad.body.error, /query\.until/);
    }
  });
});
