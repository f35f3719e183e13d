// The repository lock: two tasks on one repository run one after the other; cancel frees the lock; a
// task survives a graceful restart (the stopped server lets it go) and kill -9 of the server, and
// finishes after the relaunch.
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { AnthropicReply } from '../fakes/anthropic.js';
import { sqliteFilesOnly } from '../helpers/server.js';
import { selectRows } from '../kernel/sqlite-file.js';
import { startHarness, showFile, type Harness } from './harness.js';

/** The agent writes answer.txt = 42 at its first turn and says done at the next; `gate` holds the first turn. */
function gatedScript(gate: { open: Promise<void> }) {
  return async (request: { body: any }): Promise<AnthropicReply | string> => {
    const last = request.body.messages.at(-1);
    const afterTool = Array.isArray(last.content) && last.content.some((c: any) => c.type === 'tool_result');
    if (afterTool) return 'Done: answer.txt holds 42.';
    await gate.open;
    return { toolUses: [{ name: 'write_file', input: { path: 'answer.txt', content: '42' } }] };
  };
}

function deferred() {
  let release!: () => void;
  const open = new Promise<void>((resolve) => (release = resolve));
  return { open, release };
}

describe('work tasks: lock, queue, cancel, restart', () => {
  let h: Harness;
  before(async () => {
    h = await startHarness();
  });
  after(() => h.close());

  it('queues a second task on the same repository until the first ends', async () => {
    const gate = deferred();
    h.anthropic.setScript(gatedScript(gate));
    const { projectId, origin } = await h.repo();
    const agent = await h.agent();
    const post = (description: string) => h.server.api('POST', '/api/work-tasks', { body: { agentId: agent.id, description, projectId } });
    const first = (await post('First change')).body;
    await h.until(first.id, (t) => t.status === 'running' && t.sessionId, 'the first task to run');
    const second = (await post('Second change')).body;
    // Several scans pass while the first holds the lock: the second stays queued.
    await h.until(first.id, (t) => t.steps.length >= 4, 'the first task to be well under way');
    assert.equal((await h.task(second.id)).status, 'queued');
    gate.release();
    const a = await h.until(first.id, (t) => t.status === 'completed', 'the first task to complete');
    const b = await h.until(second.id, (t) => t.status === 'completed', 'the second task to complete');
    const secondStarted = b.steps.find((s: any) => s.status === 'branching').at;
    assert.ok(secondStarted >= a.completedAt, `the second started (${secondStarted}) after the first ended (${a.completedAt})`);
    assert.equal(showFile(origin, b.branch, 'answer.txt'), '42');
  });

  it('cancels a running task: its session stops and the lock is free for the next', async () => {
    const gate = deferred();
    h.anthropic.setScript(gatedScript(gate));
    const { projectId } = await h.repo();
    const agent = await h.agent();
    const task = (await h.server.api('POST', '/api/work-tasks', { body: { agentId: agent.id, description: 'Never finished', projectId } })).body;
    const running = await h.until(task.id, (t) => t.status === 'running' && t.sessionId, 'the task to run');
    const cancelled = await h.server.api('POST', `/api/work-tasks/${task.id}/cancel`, { body: {} });
    assert.equal(cancelled.status, 200, cancelled.text);
    assert.equal(cancelled.body.status, 'cancelled');
    assert.equal((await h.server.api('POST', `/api/work-tasks/${task.id}/cancel`, { body: {} })).status, 409);
    const session = await h.server.api('GET', `/api/sessions/${running.sessionId}`);
    assert.equal(session.body.status, 'stopped');
    gate.release();
    const next = (await h.server.api('POST', '/api/work-tasks', { body: { agentId: agent.id, description: 'After the cancel', projectId } })).body;
    await h.until(next.id, (t) => t.status === 'completed', 'the next task to complete');
    assert.equal((await h.task(task.id)).status, 'cancelled');
  });

  it('survives a graceful restart mid-task', async () => {
    const gate = deferred();
    h.anthropic.setScript(gatedScript(gate));
    const { projectId } = await h.repo();
    const agent = await h.agent();
    const task = (await h.server.api('POST', '/api/work-tasks', { body: { agentId: agent.id, description: 'Survive a restart', projectId } })).body;
    await h.until(task.id, (t) => t.status === 'running' && t.sessionId, 'the task to run');
    await h.restart(async () => {
      if (sqliteFilesOnly) return;
      // The stopped server let the task go: the next one takes it up at once, not after the lock's TTL.
      const [row] = await selectRows(join(h.dataDir, 'extensions', 'work-tasks', 'work-tasks.sqlite'), 'SELECT runner, heartbeat_at FROM work_tasks WHERE id = ?', [task.id]);
      assert.deepEqual(row, { runner: null, heartbeat_at: null });
    });
    gate.release();
    const done = await h.until(task.id, (t) => ['completed', 'failed', 'cancelled'].includes(t.status), 'the task to end after the restart', 90_000);
    assert.equal(done.status, 'completed', JSON.stringify(done.steps));
  });

  it('survives kill -9 of the server mid-task and finishes after the relaunch', async () => {
    const gate = deferred();
    h.anthropic.setScript(gatedScript(gate));
    const { projectId, origin } = await h.repo();
    const agent = await h.agent();
    const task = (await h.server.api('POST', '/api/work-tasks', { body: { agentId: agent.id, description: 'Survive a crash', projectId } })).body;
    await h.until(task.id, (t) => t.status === 'running' && t.sessionId, 'the task to run');
    await h.crashAndRelaunch();
    gate.release();
    const done = await h.until(task.id, (t) => ['completed', 'failed', 'cancelled'].includes(t.status), 'the task to end after the relaunch', 90_000);
    assert.equal(done.status, 'completed', JSON.stringify(done.steps));
    assert.equal(showFile(origin, done.branch, 'answer.txt'), '42');
    assert.ok(h.codehost.pulls.some((p) => p.head === done.branch));
  });
});
