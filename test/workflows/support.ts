// Shared by the workflow suites: a real server with the test clock on (and, when asked, the fake
// Anthropic provider), and helpers to save workflows, trigger runs and wait for them.
import assert from 'node:assert/strict';
import { startTestServer, type StartOptions, type TestServer } from '../helpers/server.js';
import { waitFor } from '../helpers/wait.js';

export const TEST_CLOCK_ENV = { ROOST_CLOCK: 'test' };

export const startWorkflowServer = (options: StartOptions = {}): Promise<TestServer> =>
  startTestServer({ ...options, env: { ...TEST_CLOCK_ENV, ...options.env } });

export type Node = { id: string; type: string; config?: Record<string, unknown> };
export type Edge = { from: string; to: string; branch?: string };

export async function saveWorkflow(server: TestServer, nodes: Node[], edges: Edge[], options: { key?: string; settings?: Record<string, unknown> } = {}): Promise<any> {
  const res = await server.api('POST', '/api/workflows', { key: options.key, body: { name: `wf-${Math.random().toString(36).slice(2, 8)}`, nodes, edges, ...(options.settings ? { settings: options.settings } : {}) } });
  assert.equal(res.status, 201, res.text);
  return res.body;
}

export async function trigger(server: TestServer, workflowId: string, input: unknown, key?: string): Promise<any> {
  const res = await server.api('POST', `/api/workflows/${workflowId}/trigger`, { key, body: { input } });
  assert.equal(res.status, 201, res.text);
  return res.body;
}

export async function getRun(server: TestServer, runId: string, key?: string): Promise<any> {
  const res = await server.api('GET', `/api/workflow-runs/${runId}`, { key });
  assert.equal(res.status, 200, res.text);
  return res.body;
}

/** Polls the run until `done(run)` holds; fails with the last run seen. */
export async function untilRun(server: TestServer, runId: string, done: (run: any) => boolean, timeoutMs = 20_000, key?: string): Promise<any> {
  let last: any;
  return waitFor(`run ${runId} to reach the expected state`, async () => {
    last = await getRun(server, runId, key);
    return done(last) ? last : undefined;
  }, timeoutMs).catch((err: Error) => {
    throw new Error(`${err.message}; last: ${JSON.stringify(last)}`);
  });
}

export const ended = (run: any) => ['completed', 'failed', 'cancelled'].includes(run.status);

/** The latest node run of a node, once `done(nodeRun)` holds. */
export async function untilNode(server: TestServer, runId: string, nodeId: string, done: (nodeRun: any) => boolean, key?: string): Promise<any> {
  const run = await untilRun(server, runId, (r) => r.nodeRuns.some((n: any) => n.nodeId === nodeId && done(n)), 20_000, key);
  return run.nodeRuns.filter((n: any) => n.nodeId === nodeId).at(-1);
}

export async function advanceClock(server: TestServer, ms: number): Promise<void> {
  const res = await server.api('POST', '/api/workflows/test-clock', { body: { advanceMs: ms } });
  assert.equal(res.status, 200, res.text);
}
