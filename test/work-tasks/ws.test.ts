// The WebSocket: create_work_task answers work_task_update and streams the task's steps to its creator;
// another client subscribes to the task's stream; bad messages, viewers and other tenants get `error`.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startHarness, writes, type Harness } from './harness.js';

describe('work tasks over the WebSocket', () => {
  let h: Harness;
  before(async () => {
    h = await startHarness();
  });
  after(() => h.close());

  it('creates a task and streams every step to its creator and to subscribers', async () => {
    const { projectId } = await h.repo();
    const agent = await h.agent();
    h.anthropic.setScript(writes('42'));
    const creator = await h.server.ws();
    const watcher = await h.server.ws();
    try {
      creator.send({ type: 'create_work_task', agentId: agent.id, description: 'Answer over the socket', projectId, requestId: 'r1' });
      const first = await creator.next((m) => m.type === 'work_task_update' && m.requestId === 'r1', 15_000);
      assert.equal(first.status, 'queued');
      const id = first.workTaskId;
      watcher.send({ type: 'subscribe', workTaskId: id });
      await watcher.next((m) => m.type === 'subscribed' || m.type === 'error');
      const completed = await creator.next((m) => m.type === 'work_task_update' && m.status === 'completed', 45_000);
      assert.match(completed.task.prUrl, /\/pull\/\d+$/);
      assert.match(completed.step.message, /pull request opened/);
      await watcher.next((m) => m.type === 'work_task_update' && m.workTaskId === id && m.status === 'completed', 15_000);
      const statuses = creator.messages.filter((m) => m.type === 'work_task_update').map((m) => m.status);
      for (const status of ['branching', 'running', 'validating', 'pushing']) assert.ok(statuses.includes(status), `${status} in ${statuses}`);
    } finally {
      await creator.close();
      await watcher.close();
    }
  });

  it('answers bad messages, viewers and other tenants with error', async () => {
    const { projectId } = await h.repo();
    const agent = await h.agent();
    const ws = await h.server.ws();
    const reg = await h.server.api('POST', '/api/tenants/register', { body: { org: 'ws-other' } });
    const viewerKey = (await h.server.api('POST', '/api/tenants/me/members', { key: reg.body.apiKey, body: { role: 'viewer' } })).body.apiKey;
    const viewer = await h.server.ws({ key: viewerKey });
    const other = await h.server.ws({ key: reg.body.apiKey });
    try {
      ws.send({ type: 'create_work_task', agentId: agent.id, requestId: 'missing' });
      assert.match((await ws.next((m) => m.type === 'error' && m.requestId === 'missing')).message, /description/);
      ws.send({ type: 'create_work_task', agentId: 'nope', description: 'x', projectId, requestId: 'unknown' });
      assert.match((await ws.next((m) => m.type === 'error' && m.requestId === 'unknown')).message, /not found/);
      viewer.send({ type: 'create_work_task', agentId: agent.id, description: 'x', projectId, requestId: 'v' });
      assert.match((await viewer.next((m) => m.type === 'error')).message, /viewers may only subscribe/);
      other.send({ type: 'create_work_task', agentId: agent.id, description: 'x', projectId, requestId: 'o' });
      assert.match((await other.next((m) => m.type === 'error' && m.requestId === 'o')).message, /not found/);
      const task = (await h.server.api('POST', '/api/work-tasks', { body: { agentId: agent.id, description: 'Mine', projectId } })).body;
      other.send({ type: 'subscribe', workTaskId: task.id });
      assert.equal((await other.next((m) => m.type === 'error' || m.type === 'subscribed')).type, 'error');
      await h.server.api('POST', `/api/work-tasks/${task.id}/cancel`, { body: {} });
    } finally {
      await Promise.all([ws.close(), viewer.close(), other.close()]);
    }
  });
});
