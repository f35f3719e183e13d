import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { TestServer } from '../helpers/server.js';
import { waitFor } from '../helpers/wait.js';
import { advanceClock, ended, getRun, saveWorkflow, startWorkflowServer, trigger, untilNode, untilRun } from './support.js';

describe('workflows: the engine', () => {
  let server: TestServer;
  before(async () => {
    server = await startWorkflowServer();
  });
  after(() => server.cleanup());

  it('runs a condition, a parallel fork and its join, a delay on the test clock and a webhook wait', async () => {
    const wf = await saveWorkflow(server, [
      { id: 'start', type: 'start' },
      { id: 'big', type: 'condition', config: { expression: 'input.amount > 100 && input.currency == "EUR"' } },
      { id: 'small', type: 'end', config: { output: 'small order' } },
      { id: 'fork', type: 'parallel' },
      { id: 'wait', type: 'delay', config: { seconds: 3600 } },
      { id: 'hook', type: 'webhook' },
      { id: 'join', type: 'join' },
      { id: 'done', type: 'end', config: { output: { paid: '{{nodes.hook.output.body.paid}}', woke: '{{nodes.wait.output.wokeAt}}', amount: '{{input.amount}}' } } },
    ], [
      { from: 'start', to: 'big' },
      { from: 'big', to: 'small', branch: 'false' },
      { from: 'big', to: 'fork', branch: 'true' },
      { from: 'fork', to: 'wait' },
      { from: 'fork', to: 'hook' },
      { from: 'wait', to: 'join' },
      { from: 'hook', to: 'join' },
      { from: 'join', to: 'done' },
    ]);

    const small = await trigger(server, wf.id, { amount: 5, currency: 'EUR' });
    const smallDone = await untilRun(server, small.id, ended);
    assert.equal(smallDone.status, 'completed');
    assert.equal(smallDone.output, 'small order');
    assert.deepEqual(smallDone.nodeRuns.map((n: any) => [n.nodeId, n.status, n.branch]), [['start', 'completed', null], ['big', 'completed', 'false'], ['small', 'completed', null]]);

    const run = await trigger(server, wf.id, { amount: 500, currency: 'EUR' });
    const hook = await untilNode(server, run.id, 'hook', (n) => n.status === 'waiting');
    const delay = await untilNode(server, run.id, 'wait', (n) => n.status === 'waiting');
    assert.ok(Date.parse(delay.wakeAt) - Date.now() > 3_500_000, 'the delay wakes an hour from now');
    assert.equal(hook.webhook.path, `/api/workflow-runs/${run.id}/webhook/hook`);
    assert.ok(!(await getRun(server, run.id)).nodeRuns.some((n: any) => n.nodeId === 'join'), 'no branch has met at the join yet');

    const accepted = await server.api('POST', `${hook.webhook.path}?token=${hook.webhook.token}`, { body: { paid: true } });
    assert.equal(accepted.status, 202, accepted.text);
    const again = await server.api('POST', `${hook.webhook.path}?token=${hook.webhook.token}`, { body: { paid: false } });
    assert.equal(again.status, 409, 'a wait takes one call');
    const halfway = await untilNode(server, run.id, 'join', (n) => n.state.arrived.includes('hook'));
    assert.equal(halfway.status, 'waiting', 'the join still waits for the delay');
    assert.equal((await getRun(server, run.id)).status, 'running');

    await advanceClock(server, 3_600_000);
    const finished = await untilRun(server, run.id, ended);
    assert.equal(finished.status, 'completed', JSON.stringify(finished));
    assert.equal(finished.output.paid, true);
    assert.equal(finished.output.amount, 500);
    assert.ok(Date.parse(finished.output.woke) >= Date.parse(delay.wakeAt));
    assert.equal(finished.nodeRuns.filter((n: any) => n.nodeId === 'join').length, 1);
    const joined = finished.nodeRuns.find((n: any) => n.nodeId === 'join').output;
    assert.deepEqual(Object.keys(joined).sort(), ['hook', 'wait']);
    assert.deepEqual(joined.hook.body, { paid: true });
  });

  it('renders transform templates over the input and earlier outputs, without running code', async () => {
    const wf = await saveWorkflow(server, [
      { id: 's', type: 'start' },
      { id: 'greet', type: 'transform', config: { template: { text: 'Hello {{input.user.name}}, you have {{input.count}} items', user: '{{input.user}}', missing: 'x{{input.nothing}}y', tags: ['{{input.tags[1]}}', 'static'] } } },
      { id: 'again', type: 'transform', config: { template: '{{nodes.greet.output.text}}!' } },
      { id: 'proto', type: 'transform', config: { template: '{{input.constructor}}|{{input.__proto__}}|{{run.id}}' } },
      { id: 'e', type: 'end', config: { output: { greeting: '{{nodes.again.output}}', proto: '{{nodes.proto.output}}' } } },
    ], [{ from: 's', to: 'greet' }, { from: 'greet', to: 'again' }, { from: 'again', to: 'proto' }, { from: 'proto', to: 'e' }]);
    const run = await trigger(server, wf.id, { user: { name: 'Ada' }, count: 3, tags: ['a', 'b'] });
    const done = await untilRun(server, run.id, ended);
    assert.equal(done.status, 'completed');
    const greet = done.nodeRuns.find((n: any) => n.nodeId === 'greet');
    assert.deepEqual(greet.output, { text: 'Hello Ada, you have 3 items', user: { name: 'Ada' }, missing: 'xy', tags: ['b', 'static'] });
    assert.deepEqual(greet.input.template, greet.output, 'the rendered input is stored');
    assert.equal(done.output.greeting, 'Hello Ada, you have 3 items!');
    assert.equal(done.output.proto, `||${run.id}`);
  });

  it('loops a bounded number of times, and a failing node fails the run with its reason', async () => {
    const wf = await saveWorkflow(server, [
      { id: 's', type: 'start' },
      { id: 'l', type: 'loop', config: { maxIterations: 5, while: 'input.stop != nodes.l.output.iteration' } },
      { id: 'body', type: 'transform', config: { template: 'round {{nodes.l.output.iteration}}' } },
      { id: 'e', type: 'end', config: { output: '{{nodes.l.output}}' } },
    ], [{ from: 's', to: 'l' }, { from: 'l', to: 'body', branch: 'body' }, { from: 'body', to: 'l' }, { from: 'l', to: 'e', branch: 'exit' }]);
    const full = await untilRun(server, (await trigger(server, wf.id, { stop: 99 })).id, ended);
    assert.equal(full.status, 'completed');
    assert.equal(full.nodeRuns.filter((n: any) => n.nodeId === 'body').length, 5);
    assert.deepEqual(full.output, { iteration: 5, done: true });

    const bad = await saveWorkflow(server, [
      { id: 's', type: 'start' }, { id: 'c', type: 'condition', config: { expression: 'input.n > "ten"' } }, { id: 'e', type: 'end' },
    ], [{ from: 's', to: 'c' }, { from: 'c', to: 'e', branch: 'true' }]);
    const failed = await untilRun(server, (await trigger(server, bad.id, { n: 3 })).id, ended);
    assert.equal(failed.status, 'failed');
    assert.match(failed.error, /node "c" \(condition\) failed: .*cannot order a number and a string/);
    assert.equal(failed.nodeRuns.find((n: any) => n.nodeId === 'c').status, 'failed');
  });

  it('stops a run at its node-run limit with a clear error', async () => {
    const wf = await saveWorkflow(server, [
      { id: 's', type: 'start' }, { id: 'l', type: 'loop', config: { maxIterations: 100 } }, { id: 'b', type: 'transform', config: { template: 1 } }, { id: 'e', type: 'end' },
    ], [{ from: 's', to: 'l' }, { from: 'l', to: 'b', branch: 'body' }, { from: 'b', to: 'l' }, { from: 'l', to: 'e', branch: 'exit' }], { settings: { maxNodeRuns: 10 } });
    const run = await untilRun(server, (await trigger(server, wf.id, null)).id, ended);
    assert.equal(run.status, 'failed');
    assert.equal(run.errorCode, 'NODE_RUN_LIMIT');
    assert.match(run.error, /limit of 10 node runs/);
    assert.ok(run.nodeRunCount <= 10);
  });

  it('pauses, resumes and cancels; a paused run lets no delay fire; a cancelled run ends its waits', async () => {
    const wf = await saveWorkflow(server, [
      { id: 's', type: 'start' }, { id: 'd', type: 'delay', config: { seconds: 60 } }, { id: 'after', type: 'transform', config: { template: 'x' } }, { id: 'h', type: 'webhook' }, { id: 'e', type: 'end' },
    ], [{ from: 's', to: 'd' }, { from: 'd', to: 'after' }, { from: 'after', to: 'h' }, { from: 'h', to: 'e' }]);
    const run = await trigger(server, wf.id, null);
    await untilNode(server, run.id, 'd', (n) => n.status === 'waiting');
    const paused = await server.api('POST', `/api/workflow-runs/${run.id}/action`, { body: { action: 'pause' } });
    assert.equal(paused.status, 200);
    assert.equal(paused.body.status, 'paused');
    assert.equal((await server.api('POST', `/api/workflow-runs/${run.id}/action`, { body: { action: 'pause' } })).status, 409);
    await advanceClock(server, 120_000);
    const health = await server.api('GET', '/api/workflows/health');
    assert.equal(health.status, 200);
    assert.ok(health.body.runs.paused >= 1);
    assert.equal((await getRun(server, run.id)).nodeRuns.find((n: any) => n.nodeId === 'd').status, 'waiting', 'paused: the due delay waits');

    const resumed = await server.api('POST', `/api/workflow-runs/${run.id}/action`, { body: { action: 'resume' } });
    assert.equal(resumed.body.status, 'running');
    const hook = await untilNode(server, run.id, 'h', (n) => n.status === 'waiting');
    const cancelled = await server.api('POST', `/api/workflow-runs/${run.id}/action`, { body: { action: 'cancel' } });
    assert.equal(cancelled.status, 200);
    assert.equal(cancelled.body.status, 'cancelled');
    const after = await getRun(server, run.id);
    assert.equal(after.nodeRuns.find((n: any) => n.nodeId === 'h').status, 'cancelled');
    const late = await server.api('POST', `/api/workflow-runs/${run.id}/webhook/h?token=${hook.webhook.token}`, { body: {} });
    assert.equal(late.status, 409);
    assert.equal((await server.api('POST', `/api/workflow-runs/${run.id}/action`, { body: { action: 'resume' } })).status, 409);
    const bad = await server.api('POST', `/api/workflow-runs/${run.id}/action`, { body: { action: 'explode' } });
    assert.equal(bad.status, 400);
  });

  it('waits for an owner approval, and follows the rejected branch', async () => {
    const wf = await saveWorkflow(server, [
      { id: 's', type: 'start' }, { id: 'ok', type: 'approval', config: { message: 'Ship {{input.what}}?' } },
      { id: 'yes', type: 'end', config: { output: 'shipped' } }, { id: 'no', type: 'end', config: { output: 'held: {{nodes.ok.output.comment}}' } },
    ], [{ from: 's', to: 'ok' }, { from: 'ok', to: 'yes', branch: 'approved' }, { from: 'ok', to: 'no', branch: 'rejected' }]);
    const first = await trigger(server, wf.id, { what: 'v2' });
    const waiting = await untilNode(server, first.id, 'ok', (n) => n.status === 'waiting');
    assert.equal(waiting.input.message, 'Ship v2?');
    const unknown = await server.api('POST', `/api/workflow-runs/${first.id}/approve`, { body: { nodeId: 's', decision: 'approve' } });
    assert.equal(unknown.status, 404);
    const approved = await server.api('POST', `/api/workflow-runs/${first.id}/approve`, { body: { nodeId: 'ok', decision: 'approve' } });
    assert.equal(approved.status, 200, approved.text);
    assert.equal((await untilRun(server, first.id, ended)).output, 'shipped');

    const second = await trigger(server, wf.id, { what: 'v3' });
    await untilNode(server, second.id, 'ok', (n) => n.status === 'waiting');
    await server.api('POST', `/api/workflow-runs/${second.id}/approve`, { body: { nodeId: 'ok', decision: 'reject', comment: 'not today' } });
    assert.equal((await untilRun(server, second.id, ended)).output, 'held: not today');
  });

  it('streams run and node updates to a WebSocket subscriber', async () => {
    const wf = await saveWorkflow(server, [{ id: 's', type: 'start' }, { id: 'h', type: 'webhook' }, { id: 'e', type: 'end', config: { output: 'fin' } }], [{ from: 's', to: 'h' }, { from: 'h', to: 'e' }]);
    const run = await trigger(server, wf.id, null);
    const ws = await server.ws();
    try {
      ws.send({ type: 'subscribe', runId: run.id });
      await ws.next((m) => m.type === 'subscribed');
      const hook = await untilNode(server, run.id, 'h', (n) => n.status === 'waiting');
      await server.api('POST', `/api/workflow-runs/${run.id}/webhook/h?token=${hook.webhook.token}`, { body: { x: 1 } });
      const node = await ws.next((m) => m.type === 'workflow_node_update' && m.nodeRun.nodeId === 'h' && m.nodeRun.status === 'completed', 10_000);
      assert.deepEqual(node.nodeRun.output.body, { x: 1 });
      const done = await ws.next((m) => m.type === 'workflow_run_update' && m.status === 'completed', 10_000);
      assert.equal(done.run.output, 'fin');
      ws.send({ type: 'subscribe', runId: '00000000-0000-0000-0000-000000000000' });
      assert.equal((await ws.next((m) => m.type === 'error')).type, 'error');
    } finally {
      await ws.close();
    }
  });

  it('a webhook or an approval that waits past its timeoutSeconds fails the run with TIMEOUT', async () => {
    const wf = await saveWorkflow(server, [
      { id: 's', type: 'start' }, { id: 'fork', type: 'parallel' },
      { id: 'h', type: 'webhook', config: { timeoutSeconds: 600 } }, { id: 'ok', type: 'approval', config: { timeoutSeconds: 1200 } },
      { id: 'j', type: 'join' }, { id: 'e', type: 'end' },
    ], [{ from: 's', to: 'fork' }, { from: 'fork', to: 'h' }, { from: 'fork', to: 'ok' }, { from: 'h', to: 'j' }, { from: 'ok', to: 'j' }, { from: 'j', to: 'e' }]);
    const hookRun = await trigger(server, wf.id, null);
    const approvalRun = await trigger(server, wf.id, null);
    const hook = await untilNode(server, hookRun.id, 'h', (n) => n.status === 'waiting');
    await untilNode(server, approvalRun.id, 'ok', (n) => n.status === 'waiting');
    // The second run's webhook is answered, so its approval is what times out there.
    const other = await untilNode(server, approvalRun.id, 'h', (n) => n.status === 'waiting');
    assert.equal((await server.api('POST', `${other.webhook.path}?token=${other.webhook.token}`, { body: {} })).status, 202);
    await untilNode(server, approvalRun.id, 'h', (n) => n.status === 'completed');
    await advanceClock(server, 601_000);
    const timedOut = await untilRun(server, hookRun.id, ended);
    assert.equal(timedOut.status, 'failed');
    assert.equal(timedOut.errorCode, 'TIMEOUT');
    assert.match(timedOut.error, /node "h" \(webhook\) failed: no webhook arrived before the node's timeout/);
    assert.equal((await server.api('POST', `${hook.webhook.path}?token=${hook.webhook.token}`, { body: {} })).status, 409, 'too late');
    assert.equal((await getRun(server, approvalRun.id)).status, 'running', 'the approval still has time');
    await advanceClock(server, 600_000);
    const unanswered = await untilRun(server, approvalRun.id, ended);
    assert.equal(unanswered.errorCode, 'TIMEOUT');
    assert.match(unanswered.error, /node "ok" \(approval\) failed: no approval arrived/);
  });

  it('a webhook answered as its timeout fires either completes the run or fails it, never both', async () => {
    const wf = await saveWorkflow(server, [
      { id: 's', type: 'start' }, { id: 'h', type: 'webhook', config: { timeoutSeconds: 60 } }, { id: 'e', type: 'end', config: { output: 'answered' } },
    ], [{ from: 's', to: 'h' }, { from: 'h', to: 'e' }]);
    const runs = await Promise.all(Array.from({ length: 8 }, () => trigger(server, wf.id, null)));
    const hooks = await Promise.all(runs.map((run) => untilNode(server, run.id, 'h', (n) => n.status === 'waiting')));
    const [answers] = await Promise.all([
      Promise.all(hooks.map((hook) => server.api('POST', `${hook.webhook.path}?token=${hook.webhook.token}`, { body: {} }))),
      advanceClock(server, 61_000),
    ]);
    for (const [i, run] of runs.entries()) {
      const done = await untilRun(server, run.id, ended);
      const node = done.nodeRuns.find((n: any) => n.nodeId === 'h');
      if (answers[i]!.status === 202) {
        assert.equal(done.status, 'completed', `the webhook was accepted, so the run goes on: ${JSON.stringify(done)}`);
        assert.equal(node.status, 'completed');
      } else {
        assert.equal(answers[i]!.status, 409, answers[i]!.text);
        assert.equal(done.errorCode, 'TIMEOUT');
        assert.equal(node.status, 'failed');
      }
    }
  });

  it('a loop that doubles a value fails with DATA_TOO_LARGE at the node limit; the engine goes on', async () => {
    // Read through the run list: the node runs of these runs are large.
    const endedRun = (workflowId: string) => waitFor(`a run of ${workflowId} to end`, async () => {
      const [run] = (await server.api('GET', `/api/workflows/${workflowId}/runs`)).body.runs;
      return run && ended(run) ? run : undefined;
    }, 120_000);
    const wf = await saveWorkflow(server, [
      { id: 's', type: 'start' },
      { id: 'l', type: 'loop', config: { maxIterations: 1000 } },
      { id: 'grow', type: 'transform', config: { template: { a: '{{nodes.grow.output}}', b: '{{nodes.grow.output}}', pad: '{{input.pad}}' } } },
      { id: 'e', type: 'end' },
    ], [{ from: 's', to: 'l' }, { from: 'l', to: 'grow', branch: 'body' }, { from: 'grow', to: 'l' }, { from: 'l', to: 'e', branch: 'exit' }]);
    await trigger(server, wf.id, { pad: 'x'.repeat(100) });
    const run = await endedRun(wf.id);
    assert.equal(run.status, 'failed', JSON.stringify(run).slice(0, 500));
    assert.equal(run.errorCode, 'DATA_TOO_LARGE');
    assert.match(run.error, /node "grow" \(transform\) failed: .*over 1048576/);
    assert.ok(run.nodeRunCount < 40, `stopped after a few doublings (${run.nodeRunCount} node runs)`);

    // A run whose outputs add up past the run's limit stops too, each output under the node limit.
    const big = await saveWorkflow(server, [
      { id: 's', type: 'start' }, { id: 'l', type: 'loop', config: { maxIterations: 40 } },
      { id: 'copy', type: 'transform', config: { template: '{{input.big}}' } }, { id: 'e', type: 'end' },
    ], [{ from: 's', to: 'l' }, { from: 'l', to: 'copy', branch: 'body' }, { from: 'copy', to: 'l' }, { from: 'l', to: 'e', branch: 'exit' }]);
    await trigger(server, big.id, { big: 'y'.repeat(900_000) });
    const heavy = await endedRun(big.id);
    assert.equal(heavy.errorCode, 'DATA_TOO_LARGE', heavy.error);
    assert.match(heavy.error, /over 16777216 for a run/);

    const after = await saveWorkflow(server, [{ id: 's', type: 'start' }, { id: 'e', type: 'end', config: { output: 'still here' } }], [{ from: 's', to: 'e' }]);
    assert.equal((await untilRun(server, (await trigger(server, after.id, null)).id, ended)).output, 'still here');
  });
});
