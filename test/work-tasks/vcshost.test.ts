// The code host: status, allowlist, blocklist (refused everywhere), and every code-host, work and code
// tool through the MCP SDK client against the fake code host.
import assert from 'node:assert/strict';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { agentToken, callTool, mcpClient } from '../agents/support.js';
import { startHarness, type Harness } from './harness.js';

describe('codehost and the work tools', () => {
  let h: Harness;
  let mcp: Client;
  let privileged: Client;
  let agent: any;
  before(async () => {
    h = await startHarness();
    agent = await h.agent();
    const grantee = await h.agent({ mcp_tool_permissions: ['svc_star_repo', 'svc_unstar_repo', 'svc_fork_repo', 'svc_follow_user'] });
    mcp = await mcpClient(h.server, await agentToken(h.server, undefined, agent.id));
    privileged = await mcpClient(h.server, await agentToken(h.server, undefined, grantee.id));
  });
  after(async () => {
    await mcp?.close();
    await privileged?.close();
    await h.close();
  });

  it('reports its status with the scopes and never the token', async () => {
    const res = await h.server.api('GET', '/api/vcshost/status');
    assert.equal(res.status, 200);
    assert.deepEqual([res.body.configured, res.body.reachable, res.body.login, res.body.scopes, res.body.rateLimitRemaining], [true, true, 'roost-bot', ['repo', 'read:org'], 5000]);
    assert.ok(!res.text.includes('ghp_'), 'the token never appears');
    // An exhausted rate limit is reported as 0 left, not as an unknown.
    h.codehost.social.rateLimitRemaining = 0;
    try {
      assert.equal((await h.server.api('GET', '/api/vcshost/status')).body.rateLimitRemaining, 0);
    } finally {
      h.codehost.social.rateLimitRemaining = 5000;
    }
  });

  it('keeps an allowlist of code-host users', async () => {
    const add = await h.server.api('POST', '/api/vcshost-allowlist', { body: { username: 'Octo-Cat', label: 'maintainer' } });
    assert.equal(add.status, 201, add.text);
    assert.equal(add.body.username, 'octo-cat');
    assert.equal((await h.server.api('POST', '/api/vcshost-allowlist', { body: { username: 'octo-cat' } })).status, 409);
    assert.equal((await h.server.api('POST', '/api/vcshost-allowlist', { body: { username: '-bad-' } })).status, 400);
    const put = await h.server.api('PUT', '/api/vcshost-allowlist/octo-cat', { body: { label: 'lead', agentId: agent.id } });
    assert.deepEqual([put.status, put.body.label, put.body.agentId], [200, 'lead', agent.id]);
    assert.equal((await h.server.api('PUT', '/api/vcshost-allowlist/nobody', { body: { label: 'x' } })).status, 404);
    const other = (await h.server.api('POST', '/api/tenants/register', { body: { org: 'allow-other' } })).body.apiKey;
    assert.deepEqual((await h.server.api('GET', '/api/vcshost-allowlist', { key: other })).body.entries, []);
    assert.equal((await h.server.api('DELETE', '/api/vcshost-allowlist/octo-cat', { key: other })).status, 404);
    assert.equal((await h.server.api('GET', '/api/vcshost-allowlist')).body.entries.length, 1);
    assert.equal((await h.server.api('DELETE', '/api/vcshost-allowlist/octo-cat')).status, 204);
  });

  it('answers every code-host tool through MCP', async () => {
    const info = await callTool(mcp, 'svc_repo_info', { repo: 'acme/widgets' });
    assert.equal(info.value.defaultBranch, 'main', info.text);
    const created = await callTool(mcp, 'svc_create_pr', { repo: 'acme/widgets', title: 'Tool PR', head: 'feature', body: 'b' });
    assert.equal(created.isError, false, created.text);
    const number = created.value.number;
    assert.equal((await callTool(mcp, 'svc_list_prs', { repo: 'acme/widgets' })).value.pulls.some((p: any) => p.number === number), true);
    assert.match((await callTool(mcp, 'svc_get_pr_diff', { repo: 'acme/widgets', number })).value.diff, /^diff --git/);
    assert.equal((await callTool(mcp, 'svc_review_pr', { repo: 'acme/widgets', number, event: 'APPROVE', body: 'ok' })).value.state, 'APPROVED');
    assert.match((await callTool(mcp, 'svc_comment_on_pr', { repo: 'acme/widgets', number, body: 'nice' })).value.url, /issuecomment/);
    const issue = await callTool(mcp, 'svc_create_issue', { repo: 'acme/widgets', title: 'Bug' });
    assert.equal(issue.isError, false, issue.text);
    assert.ok((await callTool(mcp, 'svc_list_issues', { repo: 'acme/widgets' })).value.issues.some((i: any) => i.title === 'Bug'));
    assert.equal((await callTool(privileged, 'svc_star_repo', { repo: 'acme/widgets' })).isError, false);
    assert.ok(h.codehost.social.stars.has('acme/widgets'));
    assert.equal((await callTool(privileged, 'svc_unstar_repo', { repo: 'acme/widgets' })).isError, false);
    assert.ok(!h.codehost.social.stars.has('acme/widgets'));
    assert.equal((await callTool(privileged, 'svc_fork_repo', { repo: 'acme/widgets' })).value.fork, 'roost-bot/widgets');
    assert.equal((await callTool(privileged, 'svc_follow_user', { username: 'octocat' })).isError, false);
    assert.ok(h.codehost.social.following.has('octocat'));
  });

  it('refuses bad input, privileged tools without a grant and code-host errors clearly', async () => {
    assert.equal((await callTool(mcp, 'svc_repo_info', { repo: 'no-slash' })).isError, true);
    assert.equal((await callTool(mcp, 'svc_star_repo', { repo: 'acme/widgets' })).isError, true);
    assert.equal((await callTool(mcp, 'svc_follow_user', { username: 'octocat' })).isError, true);
    const missing = await callTool(mcp, 'svc_repo_info', { repo: 'acme/missing' });
    assert.equal(missing.isError, true);
    assert.match(missing.text, /not found on the code host/);
    assert.equal((await callTool(mcp, 'svc_review_pr', { repo: 'acme/widgets', number: 1, event: 'MAYBE' })).isError, true);
    assert.equal((await callTool(mcp, 'svc_unstar_repo', { repo: 'acme/widgets' })).isError, true);
    assert.equal((await callTool(mcp, 'svc_fork_repo', { repo: 'acme/widgets' })).isError, true);
    assert.match((await callTool(mcp, 'svc_comment_on_pr', { repo: 'acme/widgets', number: 999, body: 'x' })).text, /not found/);
    assert.equal((await callTool(mcp, 'svc_comment_on_pr', { repo: 'acme/widgets', number: 1, body: '' })).isError, true);
    assert.equal((await callTool(mcp, 'svc_list_issues', { repo: 'acme/widgets', state: 'sideways' })).isError, true);
    assert.equal((await callTool(mcp, 'svc_list_work_tasks', { status: 'sideways' })).isError, true);
    assert.equal((await callTool(mcp, 'svc_repo_blocklist', { action: 'add' })).isError, true);
  });

  it('refuses a blocked repository everywhere: tools, pull requests and work tasks', async () => {
    const { projectId } = await h.repo(undefined, 'acme/secret');
    const add = await h.server.api('POST', '/api/repo-blocklist', { body: { repo: 'ACME/secret', reason: 'private' } });
    assert.equal(add.status, 201, add.text);
    assert.equal((await h.server.api('POST', '/api/repo-blocklist', { body: { repo: 'not a repo' } })).status, 400);
    assert.deepEqual((await h.server.api('GET', '/api/repo-blocklist')).body.entries.map((e: any) => e.repo), ['acme/secret']);
    for (const [tool, args] of [['svc_repo_info', {}], ['svc_list_prs', {}], ['svc_create_pr', { title: 't', head: 'h' }], ['svc_create_issue', { title: 't' }], ['svc_get_pr_diff', { number: 1 }]] as const) {
      const res = await callTool(mcp, tool, { repo: 'acme/secret', ...args });
      assert.equal(res.isError, true, tool);
      assert.match(res.text, /blocklist/, tool);
    }
    const task = await h.server.api('POST', '/api/work-tasks', { body: { agentId: agent.id, description: 'Touch it', projectId } });
    assert.equal(task.status, 403);
    assert.match(task.body.error, /blocklist/);
    const viaTool = await callTool(mcp, 'svc_create_work_task', { description: 'Touch it', project_id: projectId });
    assert.equal(viaTool.isError, true);
    // Agents list and add entries; only people remove them.
    assert.equal((await callTool(mcp, 'svc_repo_blocklist', { action: 'list' })).value.entries.length, 1);
    assert.equal((await callTool(mcp, 'svc_repo_blocklist', { action: 'add', repo: 'evil/*' })).value.repo, 'evil/*');
    assert.match((await callTool(mcp, 'svc_repo_info', { repo: 'evil/anything' })).text, /blocklist/);
    assert.equal((await callTool(mcp, 'svc_repo_blocklist', { action: 'remove', repo: 'evil/*' })).isError, true);
    const other = (await h.server.api('POST', '/api/tenants/register', { body: { org: 'block-other' } })).body.apiKey;
    assert.deepEqual((await h.server.api('GET', '/api/repo-blocklist', { key: other })).body.entries, []);
    assert.equal((await h.server.api('DELETE', `/api/repo-blocklist/${encodeURIComponent('acme/secret')}`, { key: other })).status, 404);
    assert.equal((await h.server.api('DELETE', `/api/repo-blocklist/${encodeURIComponent('acme/secret')}`)).status, 204);
    assert.equal((await h.server.api('DELETE', `/api/repo-blocklist/${encodeURIComponent('evil/*')}`)).status, 204);
  });

  it('answers the work and code tools through MCP', async () => {
    const { projectId, dir } = await h.repo({ 'Makefile': 'test:\n\ttrue\n', 'lib.ts': 'export function answer() {\n  return 42;\n}\n', 'use.ts': "import { answer } from './lib.js';\nconsole.log(answer());\n" });
    await writeFile(join(dir, 'untracked.ts'), 'export const later = 1;\n');
    const symbols = await callTool(mcp, 'svc_code_symbols', { project_id: projectId, query: 'ans' });
    assert.deepEqual(symbols.value.symbols.map((s: any) => [s.name, s.kind, s.file, s.line]), [['answer', 'function', 'lib.ts', 1]]);
    const refs = await callTool(mcp, 'svc_find_references', { project_id: projectId, symbol: 'answer' });
    assert.deepEqual(refs.value.references.map((r: any) => [r.file, r.line, r.definition]), [['lib.ts', 1, true], ['use.ts', 1, false], ['use.ts', 2, false]]);
    assert.equal((await callTool(mcp, 'svc_find_references', { project_id: projectId, symbol: 'not valid!' })).isError, true);
    assert.equal((await callTool(mcp, 'svc_code_symbols', { project_id: 'nope' })).isError, true);
    assert.match((await callTool(mcp, 'svc_current_project', {})).text, /no project/);

    h.anthropic.setScript([{ toolUses: [{ name: 'write_file', input: { path: 'x.txt', content: 'x' } }] }, 'Done.']);
    const created = await callTool(mcp, 'svc_create_work_task', { description: 'Add x.txt', project_id: projectId });
    assert.equal(created.isError, false, created.text);
    const id = created.value.id;
    assert.equal(created.value.agentId, agent.id);
    const done = await h.until(id, (t) => t.status === 'completed', 'the tool-made task to complete');
    assert.equal((await callTool(mcp, 'svc_check_work_status', { task_id: id })).value.prUrl, done.prUrl);
    assert.ok((await callTool(mcp, 'svc_list_work_tasks', { agent_id: agent.id })).value.tasks.some((t: any) => t.id === id));
    assert.equal((await callTool(mcp, 'svc_check_work_status', { task_id: 'nope' })).isError, true);
    const ended = await callTool(mcp, 'svc_work_task_escalate', { task_id: id, reason: 'too late' });
    assert.equal(ended.isError, true);
    assert.match(ended.text, /ended already/);
  });

  it('escalates a running task from its own session, which also knows its project', async () => {
    const { projectId } = await h.repo();
    let seen: any;
    h.anthropic.setScript(async (request: any) => {
      const results = request.body.messages.filter((m: any) => Array.isArray(m.content) && m.content.some((c: any) => c.type === 'tool_result'));
      if (results.length === 0) return { toolUses: [{ name: 'svc_current_project', input: {} }] };
      seen ??= JSON.stringify(results[0].content);
      return { toolUses: [{ name: 'svc_work_task_escalate', input: { reason: 'needs a human decision' } }] };
    });
    const escalator = await h.agent({ mcp_tool_permissions: [] });
    const task = (await h.server.api('POST', '/api/work-tasks', { body: { agentId: escalator.id, description: 'Decide things', projectId } })).body;
    const done = await h.until(task.id, (t) => t.status === 'escalation_needed', 'the task to be escalated');
    assert.equal(done.failureReason, 'needs a human decision');
    assert.ok(String(seen).includes(projectId), `svc_current_project answered the task's project: ${seen}`);
  });
});
