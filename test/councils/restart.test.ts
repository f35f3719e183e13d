// A launch survives a server restart: stopped while its members discuss, or while the synthesizer writes,
// it goes on at that stage on the same data dir and completes, without asking anyone the same question twice.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { waitFor } from '../helpers/wait.js';
import { councilSuite, stageOf } from './support.js';

describe('a council launch across a server restart', () => {
  const suite = councilSuite();

  it('resumes at the discussing stage and completes', async () => {
    // The first discussion round gets no answer before the restart; the sessions answer it afterwards.
    suite.f.override = (_tag, stage) => (stage === 'discussing' ? { hang: true } : undefined);
    const council = await suite.f.council({ members: suite.ids, rounds: 2 });
    const launch = await suite.f.launch(council.id);
    const discussing = () => suite.f.h.anthropic.requests.filter((r) => r.path === '/v1/messages' && stageOf(r) === 'discussing').length;
    await waitFor('the members to be asked in the discussion', async () => (discussing() >= 3 ? true : undefined), 30_000);
    assert.equal((await suite.f.get(launch.id)).stage, 'discussing');

    suite.f.override = () => undefined;
    await suite.f.h.restart();
    const done = await suite.f.until(launch.id, 'the launch to complete after the restart', (l) => l.stage === 'completed' || l.stage === 'failed', 90_000);
    const logs = await suite.f.logs(launch.id);
    const warnings = JSON.stringify(logs.filter((l) => l.level !== 'info'));
    assert.equal(done.stage, 'completed', warnings);
    assert.ok(done.members.every((m: any) => m.status === 'active'), warnings);
    assert.equal(done.votes.length, 3);

    const stages = logs.filter((l) => l.type === 'council_stage_change').map((l) => l.stage);
    assert.deepEqual(stages, ['responding', 'discussing', 'reviewing', 'synthesizing', 'completed']);
    assert.ok(logs.some((l) => l.type === 'council_log' && /the server restarted; the launch goes on in stage discussing/.test(l.message)));
    // One answer per member and round: nothing was asked twice or lost.
    const rounds = (await suite.f.messages(launch.id)).filter((m) => m.kind === 'discussion').map((m) => `${m.agentId}:${m.round}`);
    assert.equal(rounds.length, 6);
    assert.equal(new Set(rounds).size, 6);
    for (const member of done.members) {
      const events = await suite.f.h.events(member.sessionId);
      const asked = events.filter((e) => e.type === 'user_message' && /Discussion round 1 of 2/.test(e.content));
      assert.equal(asked.length, 1, `${member.name} was asked round 1 ${asked.length} times`);
    }
  });

  it('resumes at the synthesizing stage, and the synthesizer is asked once', async () => {
    suite.f.override = (_tag, stage) => (stage === 'synthesizing' ? { hang: true } : undefined);
    const council = await suite.f.council({ members: suite.ids, rounds: 0, chairId: suite.ids[1] });
    const launch = await suite.f.launch(council.id);
    const synthesizing = () => suite.f.h.anthropic.requests.filter((r) => r.path === '/v1/messages' && stageOf(r) === 'synthesizing').length;
    await waitFor('the synthesizer to be asked', async () => (synthesizing() >= 1 ? true : undefined), 30_000);

    suite.f.override = () => undefined;
    await suite.f.h.restart();
    const done = await suite.f.until(launch.id, 'the launch to complete after the restart', (l) => l.stage === 'completed' || l.stage === 'failed', 90_000);
    assert.equal(done.stage, 'completed', done.error);
    assert.equal(done.synthesizerId, suite.ids[1]);
    assert.match(done.result, /written by BETA/);
    const stages = (await suite.f.logs(launch.id)).filter((l) => l.type === 'council_stage_change').map((l) => l.stage);
    assert.deepEqual(stages, ['responding', 'discussing', 'reviewing', 'synthesizing', 'completed']);
    const asked = (await suite.f.h.events(done.synthesisSessionId)).filter((e) => e.type === 'user_message' && /Synthesis stage/.test(e.content));
    assert.equal(asked.length, 1);
  });
});
