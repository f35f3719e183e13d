// Agent-session nodes against the fake Anthropic provider, and kill -9 of the server in the middle of
// runs: relaunched on the same data dir, each run completes and each side effect happened once.
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { startFakeAnthropic, type FakeAnthropic } from '../fakes/anthropic.js';
import { pluginInfo } from '../fixtures/extensions/helpers.js';
import { isAlive } from '../helpers/sandbox-pids.js';
import { sqliteFilesOnly, type TestServer } from '../helpers/server.js';
import { changeRows } from '../kernel/sqlite-file.js';
import { waitFor } from '../helpers/wait.js';
import { advanceClock, ended, saveWorkflow, startWorkflowServer, trigger, untilNode, untilRun } from './support.js';

const MODEL = 'claude-sonnet-5-5';

describe('workflows: agent sessions and kill -9', () => {
  let anthropic: FakeAnthropic;
  let server: TestServer;
  let dataDir: string;
  let env: Record<string, string>;
  before(async () => {
    anthropic = await startFakeAnthropic({ apiKey: 'test' });
    env = { ANTHROPIC_API_KEY: 'test', ANTHROPIC_BASE_URL: anthropic.url };
    dataDir = await mkdtemp(join(tmpdir(), 'roost-wf-'));
    server = await startWorkflowServer({ env, dataDir });
  });
  after(async () => {
    await server.stop();
    await anthropic.close();
    await rm(dataDir, { recursive: true, force: true });
  });

  const messages = () => anthropic.requests.filter((r) => r.path === '/v1/messages');
  const agent = async () => {
    const res = await server.api('POST', '/api/agents', { body: { name: `wf-agent-${Math.random().toString(36).slice(2, 8)}`, model: MODEL, permissionMode: 'full-auto' } });
    assert.equal(res.status, 201, res.text);
    return res.body.id as string;
  };
  const sessionsOf = async (agentId: string) => (await server.api('GET', `/api/sessions?agentId=${agentId}&limit=200`)).body.sessions as any[];

  /**
   * SIGKILL the server (its sandboxed extensions leave when their stdin ends), let `meanwhile` act on
   * the data while nothing runs, and start the server again on the same data.
   */
  const killAndRelaunch = async (meanwhile?: () => Promise<void>) => {
    const extension = (await pluginInfo(server, 'workflows'))?.pid as number | undefined;
    server.process.kill('SIGKILL');
    await server.process;
    await waitFor('the workflows extension to leave', async () => (isAlive(extension) ? undefined : true), 15_000);
    await meanwhile?.();
    server = await startWorkflowServer({ env, dataDir });
  };

  it('asks an agent through a session and passes its answer on', async () => {
    anthropic.setScript(['The capital of France is Paris.']);
    const before = messages().length;
    const agentId = await agent();
    const wf = await saveWorkflow(server, [
      { id: 's', type: 'start' },
      { id: 'ask', type: 'agent_session', config: { agentId, prompt: 'What is the capital of {{input.country}}?' } },
      { id: 'e', type: 'end', config: { output: { answer: '{{nodes.ask.output.text}}', session: '{{nodes.ask.output.sessionId}}' } } },
    ], [{ from: 's', to: 'ask' }, { from: 'ask', to: 'e' }]);
    const run = await untilRun(server, (await trigger(server, wf.id, { country: 'France' })).id, ended, 30_000);
    assert.equal(run.status, 'completed', JSON.stringify(run));
    assert.equal(run.output.answer, 'The capital of France is Paris.');
    const sent = messages().slice(before);
    assert.equal(sent.length, 1);
    assert.match(JSON.stringify(sent[0]!.body.messages), /What is the capital of France\?/);
    const sessions = await sessionsOf(agentId);
    assert.deepEqual(sessions.map((s) => s.id), [run.output.session]);
    assert.equal(sessions[0].name, `workflow ${run.id} ask #2`);
  });

  it('a kill -9 in the middle of four runs: after one relaunch each goes on from where it was, each node and agent once', async () => {
    // Four runs caught at once by one crash (a relaunch costs a server start and its extensions):
    // one waits in a delay, one on an agent's session, one lost its session's id (SQLite only: the
    // test rewrites the stored node run), one is in a parallel fork with two branches at the join.
    let crashed = false;
    const lastAsk = (req: { body: any }) => JSON.stringify(req.body.messages.at(-1)?.content ?? '');
    anthropic.setScript((req) => {
      const said = lastAsk(req);
      if (said.includes('the first question')) return 'first answer';
      if (said.includes('the second question')) return 'second answer';
      if (said.includes('take your time')) return crashed ? 'answer after the crash' : { hang: true };
      if (said.includes('the lost id')) return crashed ? 'found it' : { hang: true };
      return 'unexpected question';
    });
    const asked = (question: string) => messages().filter((m) => lastAsk(m).includes(question)).length;

    // A delay: the relaunched engine goes on from there, each agent asked once.
    const napAgent = await agent();
    const napFlow = await saveWorkflow(server, [
      { id: 's', type: 'start' },
      { id: 'one', type: 'agent_session', config: { agentId: napAgent, prompt: 'the first question' } },
      { id: 'nap', type: 'delay', config: { seconds: 3600 } },
      { id: 'two', type: 'agent_session', config: { agentId: napAgent, prompt: 'the second question, after {{nodes.one.output.text}}' } },
      { id: 'e', type: 'end', config: { output: '{{nodes.two.output.text}}' } },
    ], [{ from: 's', to: 'one' }, { from: 'one', to: 'nap' }, { from: 'nap', to: 'two' }, { from: 'two', to: 'e' }]);
    const napRun = await trigger(server, napFlow.id, null);

    // An agent node waiting on its session: the relaunched engine waits on the same session.
    const slowAgent = await agent();
    const slowFlow = await saveWorkflow(server, [
      { id: 's', type: 'start' },
      { id: 'ask', type: 'agent_session', config: { agentId: slowAgent, prompt: 'take your time' } },
      { id: 'e', type: 'end', config: { output: '{{nodes.ask.output.text}}' } },
    ], [{ from: 's', to: 'ask' }, { from: 'ask', to: 'e' }]);
    const slowRun = await trigger(server, slowFlow.id, null);

    // A crash between starting a session and storing its id: the node finds its session by name and starts none.
    const lostAgent = sqliteFilesOnly ? undefined : await agent();
    const lostRun = lostAgent && await trigger(server, (await saveWorkflow(server, [
      { id: 's', type: 'start' },
      { id: 'ask', type: 'agent_session', config: { agentId: lostAgent, prompt: 'the lost id' } },
      { id: 'e', type: 'end', config: { output: '{{nodes.ask.output.text}}' } },
    ], [{ from: 's', to: 'ask' }, { from: 'ask', to: 'e' }])).id, null);

    // A parallel fork: the branches left meet at the join, each node once.
    const forkFlow = await saveWorkflow(server, [
      { id: 's', type: 'start' }, { id: 'fork', type: 'parallel' },
      { id: 'hook', type: 'webhook' }, { id: 'nap', type: 'delay', config: { seconds: 600 } }, { id: 'shape', type: 'transform', config: { template: 'shaped {{input.x}}' } },
      { id: 'j', type: 'join' }, { id: 'e', type: 'end', config: { output: { hook: '{{nodes.hook.output.body.v}}', shape: '{{nodes.shape.output}}', nap: '{{nodes.nap.output.wokeAt}}' } } },
    ], [
      { from: 's', to: 'fork' }, { from: 'fork', to: 'hook' }, { from: 'fork', to: 'nap' }, { from: 'fork', to: 'shape' },
      { from: 'hook', to: 'j' }, { from: 'nap', to: 'j' }, { from: 'shape', to: 'j' }, { from: 'j', to: 'e' },
    ]);
    const forkRun = await trigger(server, forkFlow.id, { x: 7 });

    await untilNode(server, napRun.id, 'nap', (n) => n.status === 'waiting');
    assert.equal(asked('the first question'), 1);
    assert.equal(asked('the second question'), 0);
    const slowAsking = await untilNode(server, slowRun.id, 'ask', (n) => typeof n.state.sessionId === 'string');
    await waitFor('the provider to be asked', async () => (asked('take your time') > 0 ? true : undefined), 20_000);
    const lostAsking = lostRun && await untilNode(server, lostRun.id, 'ask', (n) => typeof n.state.sessionId === 'string');
    const hook = await untilNode(server, forkRun.id, 'hook', (n) => n.status === 'waiting');
    assert.equal((await server.api('POST', `${hook.webhook.path}?token=${hook.webhook.token}`, { body: { v: 'hooked' } })).status, 202);
    const joined = await untilNode(server, forkRun.id, 'j', (n) => n.state.arrived.length === 2);
    assert.deepEqual([...joined.state.arrived].sort(), ['hook', 'shape']);

    crashed = true;
    await killAndRelaunch(async () => {
      if (!lostAsking) return;
      // As if the server had died after POST /api/sessions answered and before the id was stored.
      const changed = await changeRows(join(dataDir, 'extensions', 'workflows', 'workflows.sqlite'), 'UPDATE workflow_node_runs SET state = ? WHERE id = ?', [JSON.stringify({ fromNode: 's', starting: true }), lostAsking.id]);
      assert.equal(changed, 1);
    });
    // Active runs wake the extension with the server: it runs before anyone asks it anything.
    await waitFor('the workflows extension to start with the server', async () => {
      const plugins = (await server.api('GET', '/api/plugins')).body.plugins as Array<{ name: string; state: string }>;
      return plugins.find((p) => p.name === 'workflows' && p.state === 'running');
    }, 30_000);
    await advanceClock(server, 3_600_000);

    const napDone = await untilRun(server, napRun.id, ended, 45_000);
    assert.equal(napDone.status, 'completed', JSON.stringify(napDone));
    assert.equal(napDone.output, 'second answer');
    assert.equal(asked('the first question'), 1, 'each agent node asked its question once');
    assert.equal(asked('the second question'), 1, 'each agent node asked its question once');
    assert.equal((await sessionsOf(napAgent)).length, 2);
    assert.deepEqual(napDone.nodeRuns.map((n: any) => n.nodeId), ['s', 'one', 'nap', 'two', 'e'], 'no node ran twice');

    const slowDone = await untilRun(server, slowRun.id, ended, 45_000);
    assert.equal(slowDone.status, 'completed', JSON.stringify(slowDone));
    assert.equal(slowDone.output, 'answer after the crash');
    assert.equal((await sessionsOf(slowAgent)).length, 1, 'one session was started');
    assert.equal(slowDone.nodeRuns.find((n: any) => n.nodeId === 'ask').state.sessionId, slowAsking.state.sessionId);

    if (lostRun && lostAgent) {
      const lostDone = await untilRun(server, lostRun.id, ended, 45_000);
      assert.equal(lostDone.status, 'completed', JSON.stringify(lostDone));
      assert.equal(lostDone.output, 'found it');
      assert.equal(lostDone.nodeRuns.find((n: any) => n.nodeId === 'ask').state.sessionId, lostAsking.state.sessionId);
      assert.equal((await sessionsOf(lostAgent)).length, 1, 'no second session');
    }

    const forkDone = await untilRun(server, forkRun.id, ended, 30_000);
    assert.equal(forkDone.status, 'completed', JSON.stringify(forkDone));
    assert.equal(forkDone.output.hook, 'hooked');
    assert.equal(forkDone.output.shape, 'shaped 7');
    assert.ok(forkDone.output.nap);
    const ids = forkDone.nodeRuns.map((n: any) => n.nodeId);
    assert.deepEqual([...ids].sort(), ['e', 'fork', 'hook', 'j', 'nap', 's', 'shape'], 'each node ran once');
  });
});
