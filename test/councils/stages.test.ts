// Moving a launch by hand (auto off), calls in the wrong stage (409 naming the stage), and abort in
// every stage.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { waitFor } from '../helpers/wait.js';
import { councilSuite, type Stage } from './support.js';

describe('council stages by hand, wrong-stage calls and abort', () => {
  const suite = councilSuite();

  const refused = async (launchId: string, op: string, stage: RegExp, body: unknown = {}) => {
    const res = await suite.f.post(`/api/council-launches/${launchId}/${op}`, body);
    assert.equal(res.status, 409, `${op}: ${res.text}`);
    assert.equal(res.body.code, 'CONFLICT');
    assert.match(res.body.error, stage);
  };

  it('with auto off stops after discussing; review and synthesize move it on, and only in their stage', async () => {
    suite.f.override = (_tag, stage) => (stage === 'responding' ? { text: 'Slowly: 42.', delayMs: 1_500 } : undefined);
    const council = await suite.f.council({ members: suite.ids, rounds: 1 });
    const launch = await suite.f.launch(council.id, { auto: false });
    await refused(launch.id, 'review', /in stage responding \(still running\)/);
    await refused(launch.id, 'synthesize', /in stage responding/);
    await refused(launch.id, 'chat', /in stage responding; chat needs a completed launch/, { message: 'hi' });

    const waiting = await suite.f.until(launch.id, 'discussing to finish', (l) => l.stage === 'discussing' && l.stageState === 'waiting');
    assert.equal(waiting.votes.length, 0);
    await refused(launch.id, 'synthesize', /in stage discussing \(waiting\); synthesize needs a finished reviewing stage/);
    const review = await suite.f.post(`/api/council-launches/${launch.id}/review`);
    assert.equal(review.status, 200, review.text);
    assert.equal(review.body.stage, 'reviewing');
    await refused(launch.id, 'review', /in stage reviewing/);

    await suite.f.until(launch.id, 'reviewing to finish', (l) => l.stage === 'reviewing' && l.stageState === 'waiting');
    const synth = await suite.f.post(`/api/council-launches/${launch.id}/synthesize`);
    assert.equal(synth.status, 200, synth.text);
    const done = await suite.f.until(launch.id, 'the launch to complete', (l) => l.stage === 'completed');
    assert.match(done.result, /Votes: 3 approve/);
    await refused(launch.id, 'review', /in stage completed/);
    await refused(launch.id, 'synthesize', /in stage completed/);
    await refused(launch.id, 'abort', /is completed; only a launch in progress can be aborted/);
    const reasons = (await suite.f.logs(launch.id)).filter((l) => l.type === 'council_stage_change').map((l) => `${l.stage}:${l.reason ?? ''}`);
    assert.deepEqual(reasons, ['responding:', 'discussing:', 'reviewing:moved on by hand', 'synthesizing:moved on by hand', 'completed:']);
  });

  for (const stage of ['responding', 'discussing', 'reviewing', 'synthesizing'] as Stage[]) {
    it(`aborts a launch in stage ${stage}`, async () => {
      suite.f.override = (_tag, asked) => (asked === stage ? { hang: true } : undefined);
      // Two members are enough to be stopped mid-stage (each member is a session, a runner process).
      const council = await suite.f.council({ members: suite.ids.slice(0, 2), rounds: 1, chairId: suite.ids[0] });
      const launch = await suite.f.launch(council.id);
      const busy = await suite.f.until(launch.id, `stage ${stage} to be asked`, (l) => l.stage === stage && (stage === 'synthesizing' ? l.synthesisSessionId !== null : l.members.every((m: any) => m.sessionId)));
      const res = await suite.f.post(`/api/council-launches/${launch.id}/abort`);
      assert.equal(res.status, 200, res.text);
      assert.equal(res.body.stage, 'aborted');
      assert.equal(res.body.stageState, 'done');
      // The sessions that were answering are stopped, and the launch stays aborted.
      const sessions = stage === 'synthesizing' ? [busy.synthesisSessionId] : busy.members.map((m: any) => m.sessionId);
      for (const id of sessions) {
        await waitFor(`session ${id} to stop`, async () => ((await suite.f.server.api('GET', `/api/sessions/${id}`)).body.status === 'stopped' ? true : undefined), 20_000);
      }
      const logs = await suite.f.logs(launch.id);
      const last = logs.filter((l) => l.type === 'council_stage_change').at(-1);
      assert.deepEqual([last.stage, last.previousStage, last.reason], ['aborted', stage, 'aborted by request']);
      assert.equal((await suite.f.get(launch.id)).stage, 'aborted');
      await refused(launch.id, 'abort', /is aborted/);
      await refused(launch.id, 'chat', /in stage aborted/, { message: 'hello?' });
    });
  }

  it('aborts a launch waiting to be reviewed', async () => {
    suite.f.override = () => undefined;
    const council = await suite.f.council({ members: suite.ids.slice(0, 2), rounds: 0 });
    const launch = await suite.f.launch(council.id, { auto: false });
    await suite.f.until(launch.id, 'discussing to finish', (l) => l.stage === 'discussing' && l.stageState === 'waiting');
    const res = await suite.f.post(`/api/council-launches/${launch.id}/abort`);
    assert.equal(res.body.stage, 'aborted');
    await refused(launch.id, 'review', /in stage aborted/);
  });
});
