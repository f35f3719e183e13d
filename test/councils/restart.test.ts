// A launch survives a server restart: stopped while its members discuss, or while the synthesizer writes,
// it goes on at that stage on the same data dir and completes, without asking anyone the same question twice.
// Both launches are caught by one restart (a restart costs a server start and its extensions).
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { waitFor } from '../helpers/wait.js';
import { councilSuite, stageOf } from './support.js';

describe('a council launch across a server restart', () => {
  const suite = councilSuite();

  it('resumes one launch at the discussing stage and one at the synthesizing stage; both complete, the synthesizer asked once', async () => {
    // The first discussion round and the synthesis get no answer before the restart; they are answered afterwards.
    suite.f.override = (_tag, stage) => (stage === 'discussing' || stage === 'synthesizing' ? { hang: true } : undefined);
    const asked = (stage: string) => suite.f.h.anthropic.requests.filter((r) => r.path === '/v1/messages' && stageOf(r) === stage).length;
    // Only this launch discusses (two rounds)…
    const discussingLaunch = await suite.f.launch((await suite.f.council({ members: suite.ids, rounds: 2 })).id);
    // …and only this one (no discussion) reaches the synthesis before the restart.
    const synthesizingLaunch = await suite.f.launch((await suite.f.council({ members: suite.ids, rounds: 0, chairId: suite.ids[1] })).id);
    await waitFor('the members to be asked in the discussion', async () => (asked('discussing') >= 3 ? true : undefined), 60_000);
    assert.equal((await suite.f.get(discussingLaunch.id)).stage, 'discussing');
    await waitFor('the synthesizer to be asked', async () => (asked('synthesizing') >= 1 ? true : undefined), 60_000);

    suite.f.override = () => undefined;
    await suite.f.h.restart();

    // At the discussing stage: it completes, and each member was asked each round once.
    const done = await suite.f.until(discussingLaunch.id, 'the launch to complete after the restart', (l) => l.stage === 'completed' || l.stage === 'failed', 90_000);
    const logs = await suite.f.logs(discussingLaunch.id);
    const warnings = JSON.stringify(logs.filter((l) => l.level !== 'info'));
    assert.equal(done.stage, 'completed', warnings);
    assert.ok(done.members.every((m: any) => m.status === 'active'), warnings);
    assert.equal(done.votes.length, 3);

    const stages = logs.filter((l) => l.type === 'council_stage_change').map((l) => l.stage);
    assert.deepEqual(stages, ['responding', 'discussing', 'reviewing', 'synthesizing', 'completed']);
    assert.ok(logs.some((l) => l.type === 'council_log' && /the server restarted; the launch goes on in stage discussing/.test(l.message)));
    // One answer per member and round: nothing was asked twice or lost.
    const rounds = (await suite.f.messages(discussingLaunch.id)).filter((m) => m.kind === 'discussion').map((m) => `${m.agentId}:${m.round}`);
    assert.equal(rounds.length, 6);
    assert.equal(new Set(rounds).size, 6);
    for (const member of done.members) {
      const events = await suite.f.h.events(member.sessionId);
      const round1 = events.filter((e) => e.type === 'user_message' && /Discussion round 1 of 2/.test(e.content));
      assert.equal(round1.length, 1, `${member.name} was asked round 1 ${round1.length} times`);
    }

    // At the synthesizing stage: it completes, and the synthesizer was asked once.
    const synthesized = await suite.f.until(synthesizingLaunch.id, 'the launch to complete after the restart', (l) => l.stage === 'completed' || l.stage === 'failed', 90_000);
    assert.equal(synthesized.stage, 'completed', synthesized.error);
    assert.equal(synthesized.synthesizerId, suite.ids[1]);
    assert.match(synthesized.result, /written by BETA/);
    const synthesisStages = (await suite.f.logs(synthesizingLaunch.id)).filter((l) => l.type === 'council_stage_change').map((l) => l.stage);
    assert.deepEqual(synthesisStages, ['responding', 'discussing', 'reviewing', 'synthesizing', 'completed']);
    const synthesisAsks = (await suite.f.h.events(synthesized.synthesisSessionId)).filter((e) => e.type === 'user_message' && /Synthesis stage/.test(e.content));
    assert.equal(synthesisAsks.length, 1);
  });
});
