// `subscribe` with `since`: a client that subscribes after a session started gets what it missed, then
// the live stream, in order, with nothing lost or repeated — even while the session is mid-turn.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { TestSocket } from '../helpers/server.js';
import { startHarness, type Harness } from './harness.js';

describe('session stream replay', () => {
  let h: Harness;
  let agentId: string;
  let projectId: string;
  const sockets: TestSocket[] = [];

  before(async () => {
    h = await startHarness();
    agentId = (await h.agent()).id;
    projectId = (await h.project()).id;
  });
  after(async () => {
    for (const s of sockets) await s.close();
    await h.close();
  });

  async function socket(): Promise<TestSocket> {
    const ws = await h.server.ws();
    sockets.push(ws);
    return ws;
  }

  /** The seq of every session_event the socket received, in arrival order. */
  const seqs = (ws: TestSocket) => ws.messages.filter((m) => m.type === 'session_event').map((m) => m.seq);

  it('replays a session that started before the client subscribed, then goes on live', async () => {
    h.anthropic.setScript(['First answer.', 'Second answer.']);
    const session = await h.session({ agentId, projectId, initialPrompt: 'hello' });
    await h.until(session.id, (s) => s.turns === 1 && !s.busy);
    const stored = await h.events(session.id);

    const ws = await socket();
    ws.send({ type: 'subscribe', sessionId: session.id, since: 0 });
    assert.deepEqual(await ws.next((m) => m.type === 'subscribed'), { type: 'subscribed', sessionId: session.id, since: 0 });
    const last = stored.at(-1).seq;
    const final = await ws.next((m) => m.type === 'session_event' && m.seq === last);
    assert.deepEqual(final.event, stored.at(-1), 'replayed as delivered live: {type, sessionId, seq, event}');
    // next() took the last one; the others wait in arrival order.
    assert.deepEqual([...seqs(ws), last], stored.map((e: any) => e.seq));
    ws.messages.length = 0;

    await h.server.api('POST', `/api/sessions/${session.id}/messages`, { body: { content: 'again' } });
    await h.until(session.id, (s) => s.turns === 2 && !s.busy);
    const all = await h.events(session.id);
    const live = await ws.next((m) => m.type === 'session_event' && m.seq === all.at(-1).seq);
    assert.equal(live.event.type, all.at(-1).type);
  });

  it('misses nothing and repeats nothing when it subscribes mid-turn', async () => {
    h.anthropic.setScript([{ text: 'A slow, streamed answer in several parts.', delayMs: 800 }]);
    const session = await h.session({ agentId, projectId, initialPrompt: 'take your time' });
    await h.until(session.id, (s) => s.busy);
    const ws = await socket();
    ws.send({ type: 'subscribe', sessionId: session.id, since: 0 });
    await h.until(session.id, (s) => s.turns === 1 && !s.busy);
    const stored = await h.events(session.id);
    await ws.next((m) => m.type === 'session_event' && m.seq === stored.at(-1).seq, 15_000);
    const received = [...seqs(ws), stored.at(-1).seq];
    assert.deepEqual(received, stored.map((e: any) => e.seq), 'every event once, in order');
  });

  it('replays only after since, and refuses since where it cannot apply', async () => {
    h.anthropic.setScript(['Short.']);
    const session = await h.session({ agentId, projectId, initialPrompt: 'hi' });
    await h.until(session.id, (s) => s.turns === 1 && !s.busy);
    const stored = await h.events(session.id);
    const from = stored[1].seq;
    const ws = await socket();
    ws.send({ type: 'subscribe', sessionId: session.id, since: from });
    await ws.next((m) => m.type === 'session_event' && m.seq === stored.at(-1).seq);
    const got = [...seqs(ws), stored.at(-1).seq];
    assert.deepEqual(got, stored.filter((e: any) => e.seq > from).map((e: any) => e.seq));

    ws.send({ type: 'subscribe', sessionId: session.id, since: -1 });
    assert.match((await ws.next((m) => m.type === 'error')).message, /since must be a non-negative integer/);
    ws.send({ type: 'subscribe', agentId, since: 0 });
    assert.match((await ws.next((m) => m.type === 'error')).message, /cannot replay/);
    ws.send({ type: 'subscribe', sessionId: '00000000-0000-0000-0000-000000000000', since: 0 });
    assert.match((await ws.next((m) => m.type === 'error')).message, /not found/);
  });
});
