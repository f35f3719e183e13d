// Session sandboxes, measured on the shipped server: assigning a sandbox taken prepared from the
// pool (warm) against one prepared on the spot (cold: a server whose pool is empty, size 0), as the
// time the request spends getting the sandbox (`prepareMs`, server side) and as the whole
// POST /api/sandbox/assign round trip. Then the price of the sandbox on a shell tool: one
// `run_command` of `true`, sandboxed against unsandboxed, from the tool_result events' timing.
import { startFakeAnthropic } from '../fakes/anthropic.js';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { reporter } from './lib/report.js';
import { summarize } from './lib/stats.js';

const report = reporter('sandbox');
const ASSIGNS = 20;

const anthropic = await startFakeAnthropic({ apiKey: 'test', script: ['ok'] });
const env = { ANTHROPIC_API_KEY: 'test', ANTHROPIC_BASE_URL: anthropic.url };

async function post(server: TestServer, path: string, body?: unknown): Promise<any> {
  const res = await server.api('POST', path, { body });
  if (res.status >= 300) throw new Error(`POST ${path} answered ${res.status}: ${res.text}`);
  return res.body;
}

async function until(check: () => Promise<boolean>, timeoutMs = 30_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error('the bench never reached the expected state');
    await new Promise((r) => setTimeout(r, 20));
  }
}

/** `ASSIGNS` assign/release pairs; before each, waits until the pool is as full as it will get. */
async function assigns(server: TestServer): Promise<{ prepare: number[]; roundTrip: number[]; warm: number }> {
  const agent = await post(server, '/api/agents', { name: 'bench', model: 'claude-sonnet-5-5' });
  const session = await post(server, '/api/sessions', { agentId: agent.id });
  const prepare: number[] = [];
  const roundTrip: number[] = [];
  let warm = 0;
  for (let i = 0; i < ASSIGNS; i++) {
    await until(async () => {
      const { pool } = (await server.api('GET', '/api/sandbox/stats')).body;
      return pool.ready === pool.target;
    });
    const t0 = performance.now();
    const assigned = await post(server, '/api/sandbox/assign', { sessionId: session.id });
    roundTrip.push(performance.now() - t0);
    prepare.push(assigned.prepareMs);
    if (assigned.warm) warm++;
    await post(server, `/api/sandbox/release/${session.id}`);
  }
  return { prepare, roundTrip, warm };
}

async function assignFigures(): Promise<void> {
  const warmServer = await startTestServer({ env: { ...env, ROOST_EXT_SANDBOX_POOL_SIZE: '2' } });
  const warm = await assigns(warmServer).finally(() => warmServer.cleanup());
  const coldServer = await startTestServer({ env: { ...env, ROOST_EXT_SANDBOX_POOL_SIZE: '0' } });
  const cold = await assigns(coldServer).finally(() => coldServer.cleanup());
  const w = summarize(warm.prepare);
  const c = summarize(cold.prepare);
  report('assign a prepared sandbox (pool) — time getting the sandbox, median', w.p50, 'ms', 'reported, no fixed target', { p90: w.p90, max: w.max, samples: w.count, warmAssigns: warm.warm });
  report('assign a cold sandbox (empty pool) — time getting the sandbox, median', c.p50, 'ms', 'reported, no fixed target', { p90: c.p90, max: c.max, samples: c.count, warmAssigns: cold.warm });
  report('cold / prepared, time getting the sandbox', c.p50 / Math.max(w.p50, 0.001), 'x', 'prepared faster than cold');
  const wr = summarize(warm.roundTrip);
  const cr = summarize(cold.roundTrip);
  report('POST /api/sandbox/assign round trip, prepared, median', wr.p50, 'ms', 'reported, no fixed target', { p90: wr.p90, samples: wr.count });
  report('POST /api/sandbox/assign round trip, cold, median', cr.p50, 'ms', 'reported, no fixed target', { p90: cr.p90, samples: cr.count });
}

/** Wall time of `true` as a run_command, in a session with and without a sandbox. */
async function commandFigures(): Promise<void> {
  const server = await startTestServer({ env });
  try {
    const agent = await post(server, '/api/agents', { name: 'bench-cmd', model: 'claude-sonnet-5-5', permissionMode: 'full-auto' });
    const uses = Array.from({ length: 10 }, () => ({ name: 'run_command', input: { command: 'true' } }));
    const timings = async (sandboxed: boolean): Promise<number[]> => {
      const session = await post(server, '/api/sessions', { agentId: agent.id });
      if (sandboxed) await post(server, '/api/sandbox/assign', { sessionId: session.id });
      anthropic.setScript([{ toolUses: uses }, 'done']);
      await post(server, `/api/sessions/${session.id}/messages`, { content: 'go' });
      await until(async () => {
        const s = (await server.api('GET', `/api/sessions/${session.id}`)).body;
        return s.turns === 2 && !s.busy;
      }, 120_000);
      const events = (await server.api('GET', `/api/sessions/${session.id}/events?limit=1000`)).body.events as any[];
      const approvals = events.filter((e) => e.type === 'approval');
      const results = events.filter((e) => e.type === 'tool_result');
      // Each command's time: from its approval (just before it runs) to its result.
      return results.map((r, i) => Date.parse(r.at) - Date.parse(approvals[i].at));
    };
    const plain = summarize(await timings(false));
    const boxed = summarize(await timings(true));
    report('run_command `true`, unsandboxed, median', plain.p50, 'ms', 'reported, no fixed target', { p90: plain.p90, samples: plain.count });
    report('run_command `true`, sandboxed (bwrap + prlimit + watchdog), median', boxed.p50, 'ms', 'reported, no fixed target', { p90: boxed.p90, samples: boxed.count });
  } finally {
    await server.cleanup();
  }
}

try {
  await assignFigures();
  await commandFigures();
} finally {
  await anthropic.close();
}
