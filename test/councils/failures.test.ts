// Members that fail: a provider error for one agent, a member that does not answer in time, and a
// council that loses its quorum.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { councilSuite } from './support.js';

describe('council members that fail', () => {
  const suite = councilSuite();

  it('records a member whose provider fails and goes on without it', async () => {
    suite.f.override = (tag, stage) => (tag === 'GAMMA' && stage === 'responding' ? { error: { status: 400, message: 'GAMMA cannot be served' } } : undefined);
    const council = await suite.f.council({ members: suite.ids, rounds: 1 });
    const launch = await suite.f.launch(council.id);
    const done = await suite.f.until(launch.id, 'the launch to complete', (l) => l.stage === 'completed' || l.stage === 'failed');
    assert.equal(done.stage, 'completed', done.error);
    const gamma = done.members.find((m: any) => m.agentId === suite.ids[2]);
    assert.equal(gamma.status, 'failed');
    assert.match(gamma.error, /GAMMA cannot be served/);
    assert.deepEqual(done.voteBreakdown, { approve: 2, reject: 0, abstain: 0, invalid: 0 });
    assert.ok(!done.votes.some((v: any) => v.agentId === suite.ids[2]));
    // The chair was not set: the first member still in wrote the answer.
    assert.equal(done.synthesizerId, suite.ids[0]);
    const logs = await suite.f.logs(launch.id);
    assert.ok(logs.some((l) => l.type === 'council_log' && l.level === 'warn' && l.agentId === suite.ids[2] && /out of the council/.test(l.message)));
    // Nobody asked GAMMA anything after it failed.
    const messages = await suite.f.messages(launch.id);
    assert.ok(!messages.some((m) => m.agentId === suite.ids[2]));
  });

  it('records a member that does not answer within the member timeout', async () => {
    suite.f.override = (tag, stage) => (tag === 'BETA' && stage === 'discussing' ? { hang: true } : undefined);
    // Long enough for the members that do answer on a machine with both cores busy (their session's
    // start counts), short enough to wait out: the test waits for BETA's whole timeout.
    const council = await suite.f.council({ members: suite.ids, rounds: 1, memberTimeoutSeconds: 5 });
    const launch = await suite.f.launch(council.id);
    const done = await suite.f.until(launch.id, 'the launch to complete', (l) => l.stage === 'completed' || l.stage === 'failed');
    assert.equal(done.stage, 'completed', done.error);
    const beta = done.members.find((m: any) => m.agentId === suite.ids[1]);
    assert.equal(beta.status, 'failed');
    assert.match(beta.error, /did not answer within 5 s/);
    assert.equal(done.votes.length, 2);
    // Its session was stopped rather than left to answer later.
    const session = await suite.f.server.api('GET', `/api/sessions/${beta.sessionId}`);
    assert.equal(session.body.status, 'stopped');
  });

  it('fails the launch once fewer members than the quorum are left', async () => {
    suite.f.override = (tag, stage) => (tag !== 'ALPHA' && stage === 'reviewing' ? { error: { status: 400, message: `${tag} refuses to review` } } : undefined);
    const council = await suite.f.council({ members: suite.ids, rounds: 0, quorum: 2 });
    const launch = await suite.f.launch(council.id);
    const done = await suite.f.until(launch.id, 'the launch to fail', (l) => l.stage === 'completed' || l.stage === 'failed');
    assert.equal(done.stage, 'failed');
    assert.match(done.error, /only 1 of 3 members are still answering; the council's quorum is 2/);
    assert.equal(done.result, null);
    const stages = (await suite.f.logs(launch.id)).filter((l) => l.type === 'council_stage_change').map((l) => l.stage);
    assert.deepEqual(stages, ['responding', 'discussing', 'reviewing', 'failed']);
  });

  it('has the next member write the final answer when the synthesizer fails', async () => {
    suite.f.override = (tag, stage) => (tag === 'BETA' && stage === 'synthesizing' ? { error: { status: 400, message: 'BETA cannot write it' } } : undefined);
    const council = await suite.f.council({ members: suite.ids, rounds: 0, chairId: suite.ids[1] });
    const launch = await suite.f.launch(council.id);
    const done = await suite.f.until(launch.id, 'the launch to complete', (l) => l.stage === 'completed' || l.stage === 'failed');
    assert.equal(done.stage, 'completed', done.error);
    assert.equal(done.synthesizerId, suite.ids[0]);
    assert.match(done.result, /written by ALPHA/);
    const beta = done.members.find((m: any) => m.agentId === suite.ids[1]);
    assert.equal(beta.status, 'failed');
    assert.match(beta.error, /could not write the final answer: .*BETA cannot write it/);
    const alpha = done.members.find((m: any) => m.agentId === suite.ids[0]);
    const logs = await suite.f.logs(launch.id);
    assert.ok(logs.some((l) => l.type === 'council_log' && l.message === `${alpha.name} writes the final answer instead`));
  });

  it('leaves out, before a stage starts, a member whose credits cannot pay for a turn', async () => {
    suite.f.override = () => undefined;
    // A wallet opened while the tenant grants nothing starts empty.
    const settings = await suite.f.server.api('GET', '/api/settings/credits');
    assert.equal((await suite.f.server.api('PUT', '/api/settings/credits', { body: { initialGrant: 0 } })).status, 200);
    try {
      const [poor] = await suite.f.members(['POOR']);
      const council = await suite.f.council({ members: [suite.ids[0], suite.ids[1], poor], rounds: 0 });
      const launch = await suite.f.launch(council.id);
      const done = await suite.f.until(launch.id, 'the launch to complete', (l) => l.stage === 'completed' || l.stage === 'failed');
      assert.equal(done.stage, 'completed', done.error);
      const member = done.members.find((m: any) => m.agentId === poor);
      assert.equal(member.status, 'failed');
      assert.match(member.error, /cannot pay for a turn: INSUFFICIENT_CREDITS/);
      assert.equal(member.sessionId, null);
      assert.equal(done.votes.length, 2);
    } finally {
      await suite.f.server.api('PUT', '/api/settings/credits', { body: { initialGrant: settings.body.initialGrant } });
    }
  });
});
