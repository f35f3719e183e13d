// Two instances on one PostgreSQL database: runs triggered and answered on either one are run by the
// engine's leader, each node once. (On SQLite there is one instance: skipped.)
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startFakeAnthropic, type FakeAnthropic } from '../fakes/anthropic.js';
import { sharedPostgres } from '../helpers/postgres.js';
import type { TestServer } from '../helpers/server.js';
import { ended, saveWorkflow, startWorkflowServer, trigger, untilNode, untilRun } from './support.js';

const onPostgres = process.env.ROOST_TEST_POSTGRES === '1';

describe('workflows: two instances sharing PostgreSQL', { skip: onPostgres ? false : 'needs ROOST_TEST_POSTGRES=1' }, () => {
  let anthropic: FakeAnthropic;
  let a: TestServer;
  let b: TestServer;
  before(async () => {
    anthropic = await startFakeAnthropic({ apiKey: 'test', script: () => 'an answer' });
    const databaseUrl = await (await sharedPostgres()).createDatabase();
    const env = { ANTHROPIC_API_KEY: 'test', ANTHROPIC_BASE_URL: anthropic.url, ROOST_LEADER_RETRY_MS: '200' };
    a = await startWorkflowServer({ databaseUrl, env });
    b = await startWorkflowServer({ databaseUrl, env });
  });
  after(async () => {
    await Promise.all([a?.cleanup(), b?.cleanup()]);
    await anthropic?.close();
  });

  it('runs each run once whichever instance triggers it or answers its webhook', async () => {
    const agent = await a.api('POST', '/api/agents', { body: { name: 'wf-multi', model: 'claude-sonnet-5-5', permissionMode: 'full-auto' } });
    assert.equal(agent.status, 201, agent.text);
    const wf = await saveWorkflow(a, [
      { id: 's', type: 'start' },
      { id: 'ask', type: 'agent_session', config: { agentId: agent.body.id, prompt: 'run {{input.n}}' } },
      { id: 'h', type: 'webhook' },
      { id: 'e', type: 'end', config: { output: '{{nodes.ask.output.text}} {{input.n}}' } },
    ], [{ from: 's', to: 'ask' }, { from: 'ask', to: 'h' }, { from: 'h', to: 'e' }]);
    const before = anthropic.requests.filter((r) => r.path === '/v1/messages').length;
    const runs = [];
    for (let n = 0; n < 4; n++) runs.push(await trigger(n % 2 ? b : a, wf.id, { n }));
    for (const [n, run] of runs.entries()) {
      const hook = await untilNode(b, run.id, 'h', (x) => x.status === 'waiting');
      const res = await (n % 2 ? a : b).api('POST', `${hook.webhook.path}?token=${hook.webhook.token}`, { body: {} });
      assert.equal(res.status, 202, res.text);
    }
    for (const [n, run] of runs.entries()) {
      const done = await untilRun(a, run.id, ended, 30_000);
      assert.equal(done.status, 'completed', JSON.stringify(done));
      assert.equal(done.output, `an answer ${n}`);
      assert.deepEqual(done.nodeRuns.map((x: any) => x.nodeId), ['s', 'ask', 'h', 'e']);
    }
    const asked = anthropic.requests.filter((r) => r.path === '/v1/messages').slice(before);
    assert.equal(asked.length, 4, 'each agent node asked once');
    assert.equal((await a.api('GET', `/api/sessions?agentId=${agent.body.id}&limit=200`)).body.sessions.length, 4);
  });
});
