import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { TestServer } from '../helpers/server.js';
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
});
