import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { waitFor } from '../helpers/wait.js';
import { councilSuite } from '../councils/support.js';

describe('reputation: a concluded council counts each member\'s vote', () => {
  const suite = councilSuite();

  it('records a vote for members who voted and a missing vote for one who did not', async () => {
    const { f, ids } = suite;
    f.override = (tag, stage) => (tag === 'GAMMA' && stage === 'reviewing' ? 'GAMMA agrees with everyone, without voting.' : undefined);
    const council = await f.council({ members: ids, rounds: 0 });
    const launch = await f.launch(council.id);
    await f.until(launch.id, 'the launch to complete', (l) => l.stage === 'completed');
    const councilEvents = async (agentId: string) => {
      const res = await f.server.api('GET', `/api/reputation/events/${agentId}`);
      return (res.body.events as any[]).filter((e) => e.source === 'councils');
    };
    const [alpha, , gamma] = ids as [string, string, string];
    const seen = await waitFor('the council outcome to be recorded', async () => {
      const [a, g] = await Promise.all([councilEvents(alpha), councilEvents(gamma)]);
      return a.length > 0 && g.length > 0 ? { a, g } : undefined;
    }, 30_000);
    assert.deepEqual(seen.a.map((e) => [e.kind, e.detail.vote, e.detail.launchId]), [['council_vote', 'approve', launch.id]]);
    assert.deepEqual(seen.g.map((e) => [e.kind, e.detail.vote]), [['council_no_vote', null]]);
    const score = await f.server.api('GET', `/api/reputation/scores/${alpha}`);
    assert.ok(score.body.components.byKind.council_vote === 1, JSON.stringify(score.body.components));
  });
});
