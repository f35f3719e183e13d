// svc_restart_server: a graceful restart in the same process, on the same port; a running session is
// brought back by the sessions extension and goes on answering; the restart is audited.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { agentToken, callTool, FIXTURES, mcpClient } from '../agents/support.js';
import { waitForLog } from '../fixtures/extensions/helpers.js';
import { waitFor } from '../helpers/wait.js';
import { startHarness, type Harness } from '../sessions/harness.js';

describe('svc_restart_server', () => {
  let h: Harness;

  before(async () => {
    h = await startHarness({ env: { ROOST_EXTENSION_DIRS: FIXTURES }, anthropic: ['I will remember heron.', 'The word was heron.'] });
  });
  after(() => h?.close());

  it('restarts gracefully in the same process and port, and a running session goes on', async () => {
    const operator = await h.agent({ mcp_tool_permissions: ['svc_restart_server'] });
    const worker = await h.agent({ permissionMode: 'full-auto' });
    const session = await h.session({ agentId: worker.id, initialPrompt: 'remember the word heron' });
    await h.until(session.id, (s) => s.turns === 1 && !s.busy);
    const pid = h.server.process.pid;

    const client = await mcpClient(h.server, await agentToken(h.server, undefined, operator.id));
    const answer = await callTool(client, 'svc_restart_server', { reason: 'new configuration' });
    assert.equal(answer.isError, false, answer.text);
    assert.match(answer.text, /restarts gracefully/, answer.text);

    await waitForLog(h.server, /restarting \(operations: agent .*new configuration\)/);
    await waitFor('the server to listen again', async () => ((await h.server.api('GET', '/health/ready')).status === 200 ? true : undefined), 30_000);
    assert.equal(h.server.process.pid, pid);
    assert.equal(h.server.process.exitCode, null);

    // The row still says running from before; the sessions extension brings it back with a fresh runner.
    await waitFor('the session to be restarted', async () => ((await h.events(session.id)).some((e: any) => e.type === 'runner_started' && e.reason === 'restart') ? true : undefined), 20_000);
    const back = await h.until(session.id, (s) => s.status === 'running' && !s.busy, 20_000);
    await h.server.api('POST', `/api/sessions/${back.id}/messages`, { body: { content: 'what was the word?' } });
    await h.until(session.id, (s) => s.turns === 2 && !s.busy, 20_000);
    assert.equal((await h.messages(session.id)).at(-1).content, 'The word was heron.');

    const audit = (await h.server.api('GET', '/api/audit-log?action=server.restart_requested')).body;
    const entry = (audit.entries ?? audit.events ?? audit.items ?? []).find((e: any) => e.action === 'server.restart_requested');
    assert.ok(entry, JSON.stringify(audit).slice(0, 500));
    assert.equal(entry.detail.reason, 'new configuration');
    await h.server.api('POST', `/api/sessions/${session.id}/stop`);
  });

  it('refuses an agent without the grant, and a missing reason', async () => {
    const plain = await h.agent();
    const client = await mcpClient(h.server, await agentToken(h.server, undefined, plain.id));
    assert.match((await callTool(client, 'svc_restart_server', { reason: 'x' })).text, /privileged/);
    const granted = await h.agent({ mcp_tool_permissions: ['svc_restart_server'] });
    const grantedClient = await mcpClient(h.server, await agentToken(h.server, undefined, granted.id));
    const noReason = await callTool(grantedClient, 'svc_restart_server', {});
    assert.equal(noReason.isError, true);
    assert.match(noReason.text, /reason is required/);
  });
});
