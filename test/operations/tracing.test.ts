// OpenTelemetry tracing, received by a local OTLP/HTTP collector on loopback that decodes what the
// server's exporter sends (OTLP JSON): one request that crosses into the sessions extension and, through
// its agent runner, a model call on the fake Anthropic API, continuing the caller's traceparent, with no
// secret in any attribute. Without an OTLP endpoint nothing is exported and the server loads no
// OpenTelemetry module (a module-resolve hook in the server process records every one it loads).
import assert from 'node:assert/strict';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { startTestServer } from '../helpers/server.js';
import { waitFor } from '../helpers/wait.js';
import { MODEL, startHarness, type Harness } from '../sessions/harness.js';

interface Span {
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  name: string;
  attributes: Record<string, string | number | boolean>;
}

/** A collector: every span of every OTLP/HTTP JSON export it received, its attributes flattened. */
async function startCollector(): Promise<{ url: string; spans: Span[]; exports: number; close(): Promise<void> }> {
  const collector = { url: '', spans: [] as Span[], exports: 0, close: async () => undefined };
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      assert.equal(req.url, '/v1/traces');
      assert.match(String(req.headers['content-type']), /application\/json/);
      collector.exports += 1;
      const body = JSON.parse(Buffer.concat(chunks).toString('utf8'));
      for (const rs of body.resourceSpans ?? []) {
        for (const ss of rs.scopeSpans ?? []) {
          for (const s of ss.spans ?? []) {
            const attributes = Object.fromEntries((s.attributes ?? []).map((a: { key: string; value: Record<string, unknown> }) => [a.key, Object.values(a.value)[0]]));
            collector.spans.push({ traceId: s.traceId, spanId: s.spanId, parentSpanId: s.parentSpanId || undefined, name: s.name, attributes });
          }
        }
      }
      res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  collector.url = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
  collector.close = () => new Promise<void>((resolve) => server.close(() => resolve()));
  return collector;
}

/**
 * Hooks for the server process (NODE_OPTIONS) that write down every OpenTelemetry module it loads: one
 * for ES modules (--import, a resolve hook) and one for require() (--require), which `roost serve`'s
 * CommonJS bundle uses and Node 20's module hooks do not see.
 */
async function loadProbe(dir: string): Promise<{ nodeOptions: string; file: string }> {
  const file = join(dir, 'otel-modules.txt');
  await writeFile(file, '');
  await writeFile(join(dir, 'hooks.mjs'), `import { appendFileSync } from 'node:fs';
export async function resolve(specifier, context, next) {
  const result = await next(specifier, context);
  if (result.url.includes('/@opentelemetry/')) appendFileSync(${JSON.stringify(file)}, result.url + '\\n');
  return result;
}
`);
  await writeFile(join(dir, 'register.mjs'), `import { register } from 'node:module';\nregister('./hooks.mjs', import.meta.url);\n`);
  await writeFile(join(dir, 'require-probe.cjs'), `const Module = require('node:module');
const { appendFileSync } = require('node:fs');
const load = Module.prototype.require;
Module.prototype.require = function (id) {
  if (String(id).includes('@opentelemetry/')) appendFileSync(${JSON.stringify(file)}, id + '\\n');
  return load.apply(this, arguments);
};
`);
  return { nodeOptions: `--import=${join(dir, 'register.mjs')} --require=${join(dir, 'require-probe.cjs')}`, file };
}

const TRACE_ID = '4bf92f3577b34da6a3ce929d0e0e4736';
const CALLER_SPAN = '00f067aa0ba902b7';
const PROMPT = 'Summarise the kestrel migration plan';

describe('tracing with an OTLP endpoint', () => {
  let collector: Awaited<ReturnType<typeof startCollector>>;
  let h: Harness;
  let probeDir: string;
  let probe: { nodeOptions: string; file: string };

  before(async () => {
    collector = await startCollector();
    probeDir = await mkdtemp(join(tmpdir(), 'roost-otel-'));
    probe = await loadProbe(probeDir);
    h = await startHarness({ anthropic: ['The plan has three steps.'], env: { OTEL_EXPORTER_OTLP_ENDPOINT: collector.url, NODE_OPTIONS: probe.nodeOptions } });
  });
  after(async () => {
    await h?.close();
    await collector?.close();
    await rm(probeDir, { recursive: true, force: true });
  });

  it('exports one trace from the incoming traceparent through the extension to the model call, with no secret', async () => {
    const tenant = await h.server.api('POST', '/api/tenants/register', { body: { org: 'Traced' } });
    assert.equal(tenant.status, 201, tenant.text);
    const key: string = tenant.body.apiKey;
    const tenantId: string = tenant.body.tenant.id;
    const agent = await h.agent({}, key);
    const res = await h.server.api('POST', '/api/sessions', {
      key,
      headers: { traceparent: `00-${TRACE_ID}-${CALLER_SPAN}-01`, tracestate: 'vendor=opaque' },
      body: { agentId: agent.id, initialPrompt: PROMPT },
    });
    assert.equal(res.status, 201, res.text);
    await h.until(res.body.id, (s) => s.turns >= 1 && !s.busy, 30_000, key);

    const ofTrace = () => collector.spans.filter((s) => s.traceId === TRACE_ID);
    const model = await waitFor('the model call span', async () => ofTrace().find((s) => s.name === `chat ${MODEL}`), 20_000);
    const spans = ofTrace();
    const byId = new Map(spans.map((s) => [s.spanId, s]));
    const parentOf = (s: Span) => (s.parentSpanId ? byId.get(s.parentSpanId) : undefined);

    // The kernel's span of the HTTP request continues the caller's, named by the route template.
    const request = spans.find((s) => s.parentSpanId === CALLER_SPAN);
    assert.ok(request, `a span whose parent is the caller's; got ${spans.map((s) => s.name).join(', ')}`);
    assert.equal(request.name, 'POST /api/sessions');
    assert.equal(request.attributes['http.route'], '/api/sessions');
    assert.equal(request.attributes['http.response.status_code'], 201);
    assert.equal(request.attributes['roost.tenant'], tenantId);
    assert.equal(request.attributes['roost.extension'], 'sessions');

    // The model call: the runner's turn, under the extension's serving of the request, under the kernel's message to it.
    assert.equal(model.attributes['gen_ai.request.model'], MODEL);
    assert.equal(typeof model.attributes['gen_ai.usage.input_tokens'], 'number');
    assert.equal(typeof model.attributes['gen_ai.usage.output_tokens'], 'number');
    const chain: string[] = [];
    for (let s: Span | undefined = model; s; s = parentOf(s)) chain.push(s.name);
    assert.deepEqual(chain, [`chat ${MODEL}`, 'agent turn', 'serve POST /api/sessions', 'sessions POST /api/sessions', 'POST /api/sessions'], 'the model call descends from the request');
    const turn = parentOf(model)!;
    assert.equal(turn.attributes['roost.extension'], 'sessions', 'the kernel names the extension whose process sent the span');

    // No secret anywhere: not the caller's key, the provider's key, the prompt or the answer.
    for (const span of collector.spans) {
      for (const [name, value] of Object.entries(span.attributes)) {
        const text = String(value);
        assert.ok(!text.includes(key) && !text.includes(PROMPT) && !text.includes('three steps'), `${span.name} ${name} holds no secret`);
        assert.doesNotMatch(name, /authorization|api[._-]?key|prompt|body|header/i, `${span.name} records no ${name}`);
      }
    }
    // The variable set, the server did load OpenTelemetry: the probe works.
    assert.match(await readFile(probe.file, 'utf8'), /@opentelemetry\/sdk-trace-node/);
  });
});

describe('tracing without an OTLP endpoint', () => {
  it('exports nothing and loads no OpenTelemetry module', async () => {
    const collector = await startCollector();
    const dir = await mkdtemp(join(tmpdir(), 'roost-otel-'));
    const probe = await loadProbe(dir);
    const server = await startTestServer({ env: { NODE_OPTIONS: probe.nodeOptions } });
    try {
      const res = await server.api('POST', '/api/projects', { headers: { traceparent: `00-${TRACE_ID}-${CALLER_SPAN}-01` }, body: { name: 'untraced', workingDir: dir } });
      assert.equal(res.status, 201, res.text);
      assert.equal(res.headers.get('traceparent'), null);
      assert.equal(await readFile(probe.file, 'utf8'), '', 'no OpenTelemetry module was loaded');
      assert.equal(collector.exports, 0);
    } finally {
      await server.cleanup();
      await collector.close();
      await rm(dir, { recursive: true, force: true });
    }
  });
});
