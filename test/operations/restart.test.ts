// svc_restart_server: a graceful shutdown (the request in flight is finished) and then a re-exec — a new
// process serves on the same port, a child of the first one, which stays as a thin parent forwarding
// signals; a running session is brought back by the sessions extension with its context and goes on
// answering; a second restart is again a child of the first process; the restart is audited; and a
// server embedded without `roost serve` refuses it.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { agentToken, callTool, FIXTURES, mcpClient } from '../agents/support.js';
import { fixture, loadFixture } from '../fixtures/extensions/helpers.js';
import { waitFor } from '../helpers/wait.js';
import { startHarness, type Harness } from '../sessions/harness.js';

type ServerModule = typeof import('../../kernel/server.js');

const parentOf = (pid: number) => Number(readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ')[1]);
const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

describe('svc_restart_server', () => {
  let h: Harness;
  /** The pid of each server process that said it listens, in order. */
  const serving = () => [...h.server.log().matchAll(/listening on \S+ \(pid (\d+), data in/g)].map((m) => Number(m[1]));
  const restart = async (operatorId: string, reason: string) => {
    const client = await mcpClient(h.server, await agentToken(h.server, undefined, operatorId));
    const answer = await callTool(client, 'svc_restart_server', { reason });
    assert.equal(answer.isError, false, answer.text);
    assert.match(answer.text, /restarts gracefully/, answer.text);
    const before = serving().length;
    const [pid] = await waitFor('a new process to listen', async () => (serving().length > before ? serving().slice(before) : undefined), 60_000);
    await waitFor('the server to be ready again', async () => ((await h.server.api('GET', '/health/ready').catch(() => undefined))?.status === 200 ? true : undefined), 60_000);
    return pid!;
  };

  before(async () => {
    h = await startHarness({ env: { ROOST_EXTENSION_DIRS: FIXTURES }, anthropic: ['I will remember heron.', 'The word was heron.'] });
    assert.equal((await loadFixture(h.server, 'fx-probe')).status, 201);
  });
  after(() => h?.close());

  it('shuts down gracefully, then a new process serves on the same port and a running session goes on', async () => {
    const operator = await h.agent({ mcp_tool_permissions: ['svc_restart_server'] });
    const worker = await h.agent({ permissionMode: 'full-auto' });
    const session = await h.session({ agentId: worker.id, initialPrompt: 'remember the word heron' });
    await h.until(session.id, (s) => s.turns === 1 && !s.busy);
    const first = h.server.process.pid!;
    assert.deepEqual(serving(), [first]);

    // A request in flight when the restart comes is answered before the server stops.
    const inFlight = h.server.api('GET', '/api/fx-probe/sleep?ms=1500');
    await waitFor('the request to reach the extension', async () => (/^roost_extension_pending_requests\{extension="fx-probe"\} [1-9]/m.test(await (await fetch(`${h.server.url}/metrics`)).text()) ? true : undefined));
    const restarted = restart(operator.id, 'new configuration');
    const slow = await inFlight;
    assert.equal(slow.status, 200, slow.text);
    const second = await restarted;
    assert.notEqual(second, first, 'a new process');
    assert.equal(parentOf(second), first, 'a child of the first process, which stays as its parent');
    assert.equal(h.server.process.exitCode, null);
    assert.match(h.server.log(), /restarting \(operations: agent .*new configuration\)/);

    // The row still says running from before; the sessions extension brings it back with a fresh runner.
    await waitFor('the session to be restarted', async () => ((await h.events(session.id)).some((e: any) => e.type === 'runner_started' && e.reason === 'restart') ? true : undefined), 30_000);
    const back = await h.until(session.id, (s) => s.status === 'running' && !s.busy, 30_000);
    await h.server.api('POST', `/api/sessions/${back.id}/messages`, { body: { content: 'what was the word?' } });
    await h.until(session.id, (s) => s.turns === 2 && !s.busy, 30_000);
    assert.equal((await h.messages(session.id)).at(-1).content, 'The word was heron.');
    // The provider saw the conversation of before the restart: its context came back.
    const lastAsk = JSON.stringify(h.anthropic.requests.at(-1)?.body);
    assert.match(lastAsk, /heron/);

    const audit = (await h.server.api('GET', '/api/audit-log?action=server.restart_requested')).body;
    const entry = audit.entries.find((e: any) => e.action === 'server.restart_requested');
    assert.ok(entry, JSON.stringify(audit).slice(0, 500));
    assert.equal(entry.detail.reason, 'new configuration');
    await h.server.api('POST', `/api/sessions/${session.id}/stop`);

    // Again: the next process is a child of the first one too (the chain never grows), the second is gone.
    const third = await restart(operator.id, 'once more');
    assert.equal(parentOf(third), first);
    await waitFor('the second process to be gone', async () => (alive(second) ? undefined : true));
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

  it('stops on a SIGTERM to the first process: forwarded to the serving one, which stops gracefully; exit 0', async () => {
    const current = serving().at(-1)!;
    await h.server.stop();
    assert.equal(h.server.process.exitCode, 0);
    assert.equal(alive(current), false);
    assert.match(h.server.log(), /SIGTERM: shutting down/);
  });
});

describe('a restart asked of a server embedded without `roost serve`', { timeout: 60_000 }, () => {
  let server: Awaited<ReturnType<ServerModule['startServer']>>;
  let dataDir: string;
  before(async () => {
    const { startServer } = (await import(new URL('../../dist/kernel/server.js', import.meta.url).href)) as ServerModule;
    dataDir = await mkdtemp(join(tmpdir(), 'roost-embed-restart-'));
    server = await startServer({ port: 0, dataDir, extensionDirs: [] });
  });
  after(async () => {
    await server?.close();
    await rm(dataDir, { recursive: true, force: true });
  });

  it('is refused: nothing would start it again', async () => {
    await server.kernel.registry.load(fixture('fx-probe'));
    await server.kernel.registry.setGrant('fx-probe', 'restart', true);
    const res = await fetch(`${server.url}/api/fx-probe/host`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ message: { type: 'restart', reason: 'try' } }) });
    assert.equal(res.status, 200);
    const answer = (await res.json()) as { error?: { code: string; message: string } };
    assert.equal(answer.error?.code, 'CONFLICT');
    assert.match(answer.error!.message, /not started by `roost serve`/);
    assert.equal((await fetch(`${server.url}/health/live`)).status, 200, 'it goes on serving');
  });
});
