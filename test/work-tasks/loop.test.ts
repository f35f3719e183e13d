// A work task from request to opened pull request, with real git repositories in temp folders, the fake
// Anthropic API driving the agent and the fake code host receiving the pull request.
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { waitFor } from '../helpers/wait.js';
import { MAKEFILE, showFile, startHarness, writes, type Harness } from './harness.js';

describe('work tasks: the loop', () => {
  let h: Harness;
  before(async () => {
    h = await startHarness();
  });
  after(() => h.close());

  it('opens a pull request after a failing validation is fixed on the second iteration', async () => {
    const { projectId, origin, dir } = await h.repo();
    const agent = await h.agent();
    h.anthropic.setScript([...writes('41', 'First try.'), ...writes('42', 'The answer is now 42.')]);
    const res = await h.server.api('POST', '/api/work-tasks', { body: { agentId: agent.id, description: 'Fix the answer in answer.txt', projectId } });
    assert.equal(res.status, 201, res.text);
    assert.equal(res.body.status, 'queued');
    assert.match(res.body.branch, new RegExp(`^${agent.name}/fix/fix-the-answer-in-answer-txt-[0-9a-f]{6}$`));

    const done = await h.until(res.body.id, (t) => ['completed', 'failed'].includes(t.status), 'the task to end');
    assert.equal(done.status, 'completed', JSON.stringify(done.steps));
    assert.equal(done.iteration, 2);
    assert.deepEqual(done.validation.map((v: any) => [v.task, v.ok]), [['lint', true], ['test', true]]);
    assert.ok(done.steps.some((s: any) => /validation failed \(test\); iteration 2 of 3/.test(s.message)));
    assert.equal(done.pr.state, 'open');
    assert.equal(done.prUrl, 'https://codehost.test/acme/widgets/pull/1');
    // The branch was pushed to the bare remote with the fix, and the pull request names it.
    assert.equal(showFile(origin, done.branch, 'answer.txt'), '42');
    const pull = h.codehost.pulls.at(-1)!;
    assert.deepEqual([pull.repo, pull.head, pull.base], ['acme/widgets', done.branch, 'main']);
    assert.match(pull.body, /The answer is now 42\./);
    assert.match(pull.body, /\| test \| `make test` \| passed \|/);
    // The worktree goes (just after the status: the end is recorded first), the project's own checkout
    // is untouched, the feedback reached the agent.
    await waitFor('the worktree to be removed', async () => (existsSync(join(dir, '.roost-worktrees', done.id)) ? undefined : true));
    assert.equal(existsSync(join(dir, 'answer.txt')), false);
    const feedback = h.anthropic.requests.map((r: any) => JSON.stringify(r.body.messages)).find((m: string) => m.includes('Validation failed (iteration 1 of 3)'));
    assert.ok(feedback, 'the failing validation was fed back to the agent');
    // The list filters by agent; another agent's filter finds nothing.
    const list = await h.server.api('GET', `/api/work-tasks?agentId=${agent.id}`);
    assert.deepEqual(list.body.tasks.map((t: any) => t.id), [done.id]);
    assert.equal((await h.server.api('GET', '/api/work-tasks?agentId=nobody')).body.tasks.length, 0);
  });

  it('refuses a change to a protected file and pushes nothing', async () => {
    const { projectId, origin } = await h.repo();
    const agent = await h.agent();
    const sneak = 'echo "export const x = 1;" > schema.ts && git -c safe.directory=* -c user.name=a -c user.email=a@a add schema.ts && git -c safe.directory=* -c user.name=a -c user.email=a@a commit -qm sneaky';
    h.anthropic.setScript([{ toolUses: [{ name: 'run_command', input: { command: sneak } }, { name: 'write_file', input: { path: 'answer.txt', content: '42' } }] }, 'Done.']);
    const res = await h.server.api('POST', '/api/work-tasks', { body: { agentId: agent.id, description: 'Add a schema', projectId } });
    const done = await h.until(res.body.id, (t) => ['completed', 'failed'].includes(t.status), 'the task to end');
    assert.equal(done.status, 'failed');
    assert.match(done.failureReason, /protected files \(schema\.ts\)/);
    assert.equal(done.pr, null);
    assert.throws(() => showFile(origin, done.branch, 'answer.txt'));
  });

  it('fails after three iterations that never pass', async () => {
    const { projectId } = await h.repo({ 'Makefile': MAKEFILE });
    const agent = await h.agent();
    h.anthropic.setScript([...writes('1'), ...writes('2'), ...writes('3')]);
    const res = await h.server.api('POST', '/api/work-tasks', { body: { agentId: agent.id, description: 'Try hard', projectId } });
    const done = await h.until(res.body.id, (t) => ['completed', 'failed'].includes(t.status), 'the task to end');
    assert.equal(done.status, 'failed');
    assert.equal(done.iteration, 3);
    assert.match(done.failureReason, /validation still failed after 3 iterations \(test\)/);
  });

  it('refuses bad input, unknown and foreign ids, and a folder that is no git repository', async () => {
    const { projectId } = await h.repo();
    const agent = await h.agent();
    const post = (body: unknown) => h.server.api('POST', '/api/work-tasks', { body });
    assert.equal((await post({ agentId: agent.id, projectId })).status, 400);
    assert.equal((await post({ agentId: agent.id, projectId, description: '   ' })).status, 400);
    assert.equal((await post({ agentId: agent.id, projectId, description: 'x', extra: 1 })).status, 400);
    assert.equal((await post({ agentId: agent.id, projectId, description: 'x'.repeat(100_001) })).status, 400);
    assert.equal((await h.server.api('POST', '/api/work-tasks', { raw: '{"agentId":' })).status, 400);
    assert.equal((await post({ agentId: 'nope', projectId, description: 'x' })).status, 404);
    assert.equal((await post({ agentId: agent.id, projectId: 'nope', description: 'x' })).status, 404);
    assert.equal((await h.server.api('GET', '/api/work-tasks/nope')).status, 404);
    assert.equal((await h.server.api('POST', '/api/work-tasks/nope/cancel', { body: {} })).status, 404);

    const plain = await h.server.api('POST', '/api/projects', { body: { name: 'plain', workingDir: h.dataDir.replace(/roost-data-.*/, '') } });
    const notGit = await post({ agentId: agent.id, projectId: plain.body.id, description: 'x' });
    assert.equal(notGit.status, 400);
    assert.match(notGit.body.error, /not a git repository/);

    const other = await h.server.api('POST', '/api/tenants/register', { body: { org: 'other-org' } });
    const key = other.body.apiKey;
    const created = await post({ agentId: agent.id, projectId, description: 'mine' });
    assert.equal(created.status, 201);
    assert.equal((await h.server.api('GET', `/api/work-tasks/${created.body.id}`, { key })).status, 404);
    assert.equal((await h.server.api('POST', `/api/work-tasks/${created.body.id}/cancel`, { key, body: {} })).status, 404);
    assert.equal((await h.server.api('GET', '/api/work-tasks', { key })).body.tasks.length, 0);
    assert.equal((await h.server.api('POST', `/api/work-tasks/${created.body.id}/cancel`, { body: {} })).status, 200);
  });
});
