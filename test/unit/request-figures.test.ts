// The request figures (kernel/request-figures.ts) are kept without prom-client's Counter and Histogram
// but must read exactly as they would: the same series, labels, buckets, sums and counts, in the same
// JSON, for /metrics (rendered by the prometheus extension) and the samplers alike.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Counter, Histogram, Registry } from 'prom-client';
import { RequestFigures } from '../../kernel/request-figures.js';

const BOUNDS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 10];
const REQUESTS = 'roost_http_requests_total';
const DURATION = 'roost_http_request_duration_seconds';

/** What the kernel recorded with prom-client itself before request-figures.ts. */
function promClientFigures() {
  const registry = new Registry();
  const requests = new Counter({ name: REQUESTS, help: 'REST requests answered, by route pattern, owner (kernel or extension) and status', labelNames: ['method', 'route', 'owner', 'status'], registers: [registry] });
  const duration = new Histogram({ name: DURATION, help: 'Time from a REST request arriving to its answer, by route pattern and owner', labelNames: ['method', 'route', 'owner'], buckets: BOUNDS, registers: [registry] });
  return {
    registry,
    observe(method: string, route: string, owner: string, status: number, seconds: number) {
      requests.inc({ method, route, owner, status: String(status) });
      duration.observe({ method, route, owner }, seconds);
    },
  };
}

/** A metric's JSON without the exemplar fields prom-client adds (null or undefined: nothing renders them). */
async function read(registry: Registry, name: string): Promise<unknown> {
  const metric = await registry.getSingleMetric(name)!.get();
  return { ...metric, values: metric.values.map(({ exemplar: _exemplar, ...value }: { exemplar?: unknown }) => value) };
}

describe('request figures', () => {
  it('read as prom-client\'s Counter and Histogram would, value for value', async () => {
    const theirs = promClientFigures();
    const ours = new Registry();
    const figures = new RequestFigures(ours, BOUNDS);
    const requests: Array<[string, string, string, number, number]> = [
      ['GET', '/api/agents', 'agents', 200, 0.0004],
      ['GET', '/api/agents', 'agents', 200, 0.001], // on a bound: counted in it, as prom-client does
      ['GET', '/api/agents', 'agents', 404, 0.03],
      ['POST', '/api/agents', 'agents', 201, 0.2],
      ['GET', '/health/live', 'kernel', 200, 12], // over every bound: +Inf only
      ['GET', 'unmatched', 'kernel', 404, 0.0026],
    ];
    for (const request of requests) {
      theirs.observe(...request);
      figures.observe(...request);
    }
    for (const name of [REQUESTS, DURATION]) assert.deepEqual(await read(ours, name), await read(theirs.registry, name), name);
    assert.equal(await ours.metrics(), await theirs.registry.metrics(), 'the same Prometheus text, line for line');
  });

  it('starts empty, and reset() empties it again', async () => {
    const registry = new Registry();
    const figures = new RequestFigures(registry, BOUNDS);
    assert.deepEqual((await registry.getSingleMetric(DURATION)!.get()).values, []);
    figures.observe('GET', '/api/agents', 'agents', 200, 0.01);
    assert.equal((await registry.getSingleMetric(REQUESTS)!.get()).values.length, 1);
    registry.resetMetrics();
    assert.deepEqual((await registry.getSingleMetric(REQUESTS)!.get()).values, []);
    assert.deepEqual((await registry.getSingleMetric(DURATION)!.get()).values, []);
  });
});
