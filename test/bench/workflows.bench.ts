// Workflows, measured on the shipped server: the durable engine's overhead per node, on a 100-node
// workflow (start, 98 transform nodes in a chain, end) whose nodes do next to nothing, so the time is
// the engine's own — claiming each node run, storing its input, its output and its successor in one
// transaction, announcing it on the run's stream. Timed from the trigger until the run's completion
// reaches a WebSocket subscriber, minus the same for a 2-node workflow (the fixed cost of a run).
import { startTestServer } from '../helpers/server.js';
import { reporter } from './lib/report.js';
import { summarize } from './lib/stats.js';

const report = reporter('workflows');
const NODES = 100;
const RUNS = 10;

const server = await startTestServer();
try {
  const chain = await save(NODES);
  const bare = await save(2);
  const timeRun = async (workflowId: string): Promise<number> => {
    const ws = await server.ws();
    const t0 = performance.now();
    const run = await post(`/api/workflows/${workflowId}/trigger`, { input: { n: 1 } });
    // A run's stream is known once it is triggered: subscribe, then read the run once. A run that
    // completed before the subscription took shows completed there; one that had not sends its
    // completion to the subscription (kept until asked for). Neither waits for a message that never comes.
    ws.send({ type: 'subscribe', runId: run.id });
    await ws.next((m) => m.type === 'subscribed');
    const [stored] = (await server.api('GET', `/api/workflows/${workflowId}/runs?limit=1`)).body.runs;
    if (stored?.id !== run.id || !['running', 'completed'].includes(stored.status)) throw new Error(`run ${run.id} is ${stored?.status}`);
    if (stored.status !== 'completed') await ws.next((m) => m.type === 'workflow_run_update' && m.status === 'completed', 120_000);
    const elapsed = performance.now() - t0;
    await ws.close();
    return elapsed;
  };
  await timeRun(chain.id); // warm-up: first use of the extension, prepared statements
  await timeRun(bare.id);
  const chains: number[] = [];
  const bares: number[] = [];
  for (let i = 0; i < RUNS; i++) {
    chains.push(await timeRun(chain.id));
    bares.push(await timeRun(bare.id));
  }
  const c = summarize(chains);
  const b = summarize(bares);
  const perNode = (c.p50 - b.p50) / (NODES - 2);
  report('engine overhead per node (100-node chain of transforms), median', perNode * 1000, 'us', 'reported, no fixed target', {
    runMedianMs: c.p50, runMaxMs: c.max, twoNodeRunMedianMs: b.p50, runs: RUNS, nodes: NODES, store: process.env.ROOST_TEST_POSTGRES === '1' ? 'postgres' : 'sqlite',
  });
} finally {
  await server.cleanup();
}

async function save(nodes: number): Promise<{ id: string }> {
  const ids = Array.from({ length: nodes }, (_, i) => (i === 0 ? 'start' : i === nodes - 1 ? 'end' : `t${i}`));
  return post('/api/workflows', {
    name: `bench-${nodes}`,
    settings: { maxNodeRuns: 1000 },
    nodes: ids.map((id, i) => (i === 0 ? { id, type: 'start' } : i === nodes - 1 ? { id, type: 'end', config: { output: `{{nodes.${ids[i - 1]}.output}}` } } : { id, type: 'transform', config: { template: { step: i, previous: `{{nodes.${ids[i - 1]}.output.step}}` } } })),
    edges: ids.slice(1).map((id, i) => ({ from: ids[i]!, to: id })),
  });
}

async function post(path: string, body: unknown): Promise<any> {
  const res = await server.api('POST', path, { body });
  if (res.status >= 300) throw new Error(`POST ${path} answered ${res.status}: ${res.text}`);
  return res.body;
}
