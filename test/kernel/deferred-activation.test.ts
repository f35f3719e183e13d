// activation = "deferred" (the operations extension): the server is ready without it, and it stays idle
// until its first use or ROOST_EXTENSION_DEFERRED_START_SECONDS after the start, whichever comes first;
// once running it is not stopped when idle, as a lazy extension is. Its first sample measures from the
// kernel's start, so the time before it started is not lost.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { waitFor } from '../helpers/wait.js';

type Detail = { state: string; summary: string; activation: string };
const detailOf = async (server: TestServer, name: string): Promise<Detail> => (await server.api('GET', '/api/health')).body.extensionDetail[name];

describe('a deferred extension, before its time', () => {
  let server: TestServer;
  before(async () => {
    // Lazy extensions stop after a second without traffic; the deferred one's time never comes here.
    server = await startTestServer({ env: { ROOST_EXTENSION_DEFERRED_START_SECONDS: '3600', ROOST_EXTENSION_IDLE_SECONDS: '1' } });
  });
  after(() => server.cleanup());

  it('is idle while the server is ready without it', async () => {
    assert.equal((await server.api('GET', '/health/ready')).status, 200);
    assert.deepEqual(await detailOf(server, 'operations'), {
      ...(await detailOf(server, 'operations')),
      state: 'idle',
      activation: 'deferred',
      summary: 'idle (starts on first use, or a while after the server)',
    });
  });

  it('starts on first use, and its first sample has the rates since the kernel started', async () => {
    for (let i = 0; i < 3; i++) assert.equal((await server.api('GET', '/api/health')).status, 200);
    assert.equal((await server.api('POST', '/api/performance/collect')).status, 200);
    assert.equal((await detailOf(server, 'operations')).state, 'running');
    // The first sample (taken as it started) counted the requests made before it ran.
    const trend = (await server.api('GET', '/api/performance/trends?metric=http.request_rate&owner=kernel&route=*')).body as { series: Array<{ points: Array<{ value: number }> }> };
    assert.ok(trend.series[0]?.points.some((p) => p.value > 0), JSON.stringify(trend));
    const cpu = (await server.api('GET', '/api/performance/trends?metric=kernel.cpu_percent')).body as { series: Array<{ points: unknown[] }> };
    assert.equal(cpu.series[0]?.points.length, 2, 'both samples have the rate, the first one too');
  });

  it('is not stopped when idle, as a lazy extension is', async () => {
    assert.equal((await server.api('GET', '/api/agents')).status, 200);
    // operations has been idle longer than agents: the sweep that stops agents would have stopped it too.
    await waitFor('agents to be stopped when idle', async () => ((await detailOf(server, 'agents')).state === 'idle' ? true : undefined), 60_000);
    assert.equal((await detailOf(server, 'operations')).state, 'running');
  });
});

describe('a deferred extension, when its time comes', () => {
  let server: TestServer;
  before(async () => {
    server = await startTestServer({ env: { ROOST_EXTENSION_DEFERRED_START_SECONDS: '1' } });
  });
  after(() => server.cleanup());

  it('starts unused', async () => {
    await waitFor('operations to start by itself', async () => ((await detailOf(server, 'operations')).state === 'running' ? true : undefined), 60_000);
  });
});
