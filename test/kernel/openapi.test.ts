// GET /api/openapi.json: a valid OpenAPI 3.1 document holding every route the kernel serves and every
// extension declares, the doors that are no route (/metrics, /mcp, /ws), and the query parameters; every
// kernel, operations, feedback and exams route answers live as the document says (each of them walked
// below, and the walk checked to be complete); a route without a response schema is marked as such and
// listed; the document follows unload and load.
import assert from 'node:assert/strict';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { createConfig, lintFromString } from '@redocly/openapi-core';
import { Validator } from '@seriousme/openapi-schema-validator';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import { parseManifest, readManifest } from '../../kernel/host/manifest.js';
import { loadFixture } from '../fixtures/extensions/helpers.js';
import { startTestServer, type ApiResponse, type TestServer } from '../helpers/server.js';
import { waitFor } from '../helpers/wait.js';

type Op = { summary?: string; tags: string[]; parameters?: Array<{ name: string; in: string; required: boolean }>; responses: Record<string, { content?: Record<string, { schema: object }> }>; 'x-roost-response-undescribed'?: boolean };
type Doc = { paths: Record<string, Record<string, Op>>; components: { schemas: Record<string, object>; responses: Record<string, Op['responses'][string]> } };

const openApiPath = (path: string) => path.replace(/:(\w+)/g, '{$1}');

describe('GET /api/openapi.json', () => {
  let server: TestServer;
  let workDir: string;
  let doc: Doc;
  const ajv = addFormats.default(new Ajv2020({ strict: false, allErrors: true }));
  /** "METHOD /path" of every operation a live response was validated against. */
  const validated = new Set<string>();
  const operations = (owners: string[]) => Object.entries(doc.paths).flatMap(([path, item]) => Object.entries(item).filter(([, op]) => owners.includes(op.tags[0]!)).map(([method, op]) => ({ key: `${method.toUpperCase()} ${path}`, op })));

  /** Validates a live response against what the document says of its route and status. */
  const assertConforms = (method: string, path: string, res: ApiResponse) => {
    const operation = doc.paths[openApiPath(path)]?.[method.toLowerCase()];
    assert.ok(operation, `${method} ${path} is in the document`);
    const named = (operation.responses[String(res.status)] ?? operation.responses.default!) as Op['responses'][string] & { $ref?: string };
    const declared = named.$ref ? doc.components.responses[named.$ref.replace('#/components/responses/', '')]! : named;
    validated.add(`${method} ${openApiPath(path)}`);
    if (res.status === 204) return assert.equal(res.text, '', `${method} ${path} 204 has no body`);
    const [type, media] = Object.entries(declared.content ?? {})[0] ?? [];
    assert.ok(type && media, `${method} ${path} ${res.status} says what its body is`);
    if (type !== 'application/json') return assert.ok(res.headers.get('content-type')?.startsWith(type.split(';')[0]!), `${method} ${path}: ${res.headers.get('content-type')} is ${type}`);
    const resolved = JSON.parse(JSON.stringify(media.schema).replaceAll('"#/components/schemas/Error"', '"urn:roost:error"'));
    const validate = ajv.compile(resolved);
    assert.ok(validate(res.body), `${method} ${path} ${res.status}: ${ajv.errorsText(validate.errors)} in ${res.text.slice(0, 300)}`);
  };
  const call = async (method: string, path: string, options: Parameters<TestServer['api']>[2] & { expect?: number; as?: string } = {}) => {
    const res = await server.api(method, path, options);
    if (options.expect !== undefined) assert.equal(res.status, options.expect, `${method} ${path}: ${res.text.slice(0, 300)}`);
    assertConforms(method, options.as ?? path.split('?')[0]!, res);
    return res;
  };

  before(async () => {
    server = await startTestServer();
    workDir = await mkdtemp(join(tmpdir(), 'roost-openapi-'));
    const res = await server.api('GET', '/api/openapi.json');
    assert.equal(res.status, 200, res.text);
    doc = res.body;
    ajv.addSchema({ ...doc.components.schemas.Error, $id: 'urn:roost:error' });
  });

  after(async () => {
    await server?.cleanup();
    await rm(workDir, { recursive: true, force: true });
  });

  it('is a valid OpenAPI 3.1 document', async () => {
    const result = await new Validator().validate(doc as never);
    assert.equal(result.valid, true, JSON.stringify(result.errors, null, 1)?.slice(0, 2000));
    assert.equal((doc as unknown as { openapi: string }).openapi, '3.1.0');
  });

  it("passes Redocly's recommended rules with no error and no warning", async () => {
    const problems = await lintFromString({ source: JSON.stringify(doc), absoluteRef: `${server.url}/api/openapi.json`, config: await createConfig({ extends: ['recommended'] }) });
    assert.deepEqual(problems.map((p) => `${p.severity} ${p.ruleId}: ${p.message} at ${p.location[0]?.pointer}`).slice(0, 20), []);
  });

  it('lists the error answers each route can give: 401, 403 and 429 for all, the rest by what the route takes', () => {
    const responses = (path: string, method: string) => Object.keys(doc.paths[path]![method]!.responses);
    assert.deepEqual(responses('/api/projects/{id}', 'put'), ['200', '400', '401', '403', '404', '413', '429', '503', '504', '507', 'default']);
    assert.deepEqual(responses('/api/health', 'get'), ['200', '401', '403', '429', '503', 'default']);
    assert.equal((doc.paths['/api/projects']!.get!.responses['429'] as { $ref?: string }).$ref, '#/components/responses/RateLimited');
    assert.ok((doc.components.responses.RateLimited as { headers?: object }).headers, 'a 429 says when to retry');
  });

  it("holds every route each loaded extension declares, and none of the internal ones", async () => {
    const { plugins } = (await server.api('GET', '/api/plugins')).body as { plugins: Array<{ name: string; dir: string; state: string }> };
    let checked = 0;
    for (const plugin of plugins.filter((p) => p.state !== 'unloaded')) {
      const manifest = await readManifest(plugin.dir);
      for (const route of manifest.server?.routes ?? []) {
        const operation = doc.paths[openApiPath(route.path)]?.[route.method.toLowerCase()];
        if (route.internal) assert.equal(operation, undefined, `${route.method} ${route.path} is internal`);
        else {
          assert.ok(operation, `${plugin.name}: ${route.method} ${route.path}`);
          assert.deepEqual(operation.tags, [plugin.name]);
          // Marked exactly when the manifest gives no response schema for a route that answers a body.
          const undescribed = route.doc?.response === undefined && route.doc?.contentType === undefined && route.doc?.status !== 204;
          assert.equal(operation['x-roost-response-undescribed'] === true, undescribed, `${route.method} ${route.path} marked as described or not`);
          checked++;
        }
      }
    }
    assert.ok(checked > 40, `${checked} extension routes checked`);
  });

  it('gives every route of the kernel and of every loaded extension a summary and a response schema', () => {
    const all = Object.entries(doc.paths).flatMap(([path, item]) => Object.entries(item).map(([method, op]) => ({ key: `${op.tags[0]}: ${method.toUpperCase()} ${path}`, op })));
    assert.ok(all.length >= 290, `${all.length} operations`);
    assert.ok(new Set(all.map(({ op }) => op.tags[0])).size >= 30, 'the kernel and the in-tree extensions');
    const lacking = all.filter(({ op }) => !op.summary || op['x-roost-response-undescribed']).map(({ key }) => key);
    assert.deepEqual(lacking, [], 'routes without a summary or a response schema');
  });

  it('documents /metrics, /mcp and /ws, and the query parameters of the routes that take them', () => {
    assert.ok(doc.paths['/metrics']?.get?.responses['200']?.content?.['text/plain; version=0.0.4; charset=utf-8']);
    assert.ok(doc.paths['/mcp']?.post?.responses['200']);
    assert.ok(doc.paths['/ws']?.get?.responses['101']);
    const query = (path: string) => Object.fromEntries((doc.paths[path]?.get?.parameters ?? []).filter((p) => p.in === 'query').map((p) => [p.name, p.required]));
    assert.deepEqual(query('/api/performance/trends'), { metric: true, from: false, to: false, route: false, owner: false, extension: false, database: false, queue: false, instance: false });
    for (const name of ['window', 'baseline', 'recent', 'k', 'minChange', 'minBaseline', 'route']) assert.equal(query('/api/performance/regressions')[name], false, name);
    assert.deepEqual(Object.keys(query('/api/performance/health')).sort(), ['from', 'instance', 'limit', 'offset', 'status', 'to']);
    assert.deepEqual(query('/api/feedback/analysis'), { days: false });
    assert.deepEqual(Object.keys(query('/api/exam/runs')).sort(), ['agentId', 'limit', 'offset']);
    assert.deepEqual(Object.keys(query('/api/audit-log')).sort(), ['action', 'actor', 'limit', 'offset', 'resource', 'since', 'tenantId', 'until']);
  });

  it('describes live responses of the kernel truly: every route, success and error', async () => {
    for (const path of ['/health/live', '/health/ready', '/api/health', '/api/openapi.json', '/api/operational-mode', '/api/settings', '/api/settings/api-key/status', '/api/plugins', '/api/audit-log', '/api/audit-log/verify', '/.well-known/agent-card.json']) {
      await call('GET', path, { expect: 200 });
    }
    await call('POST', '/api/operational-mode', { body: { mode: 'normal' }, expect: 200 });
    await call('POST', '/api/operational-mode', { body: { mode: 'asleep' }, expect: 400 });
    await call('POST', '/api/ws/ticket', { expect: 201 });
    await call('POST', '/api/backup', { expect: 201 });
    // The end-to-end scope: its report has the shape of every scope's, and it starts only the few extensions
    // its round trips need (the unit scope starts every loaded one; test/kernel/selftest.test.ts runs it).
    await call('POST', '/api/selftest/run', { body: { scope: 'e2e' }, expect: 200, timeoutMs: 300_000 });

    const tenant = await call('POST', '/api/tenants/register', { body: { org: 'openapi-tenant' }, expect: 201 });
    const key = tenant.body.apiKey as string;
    await call('GET', '/api/tenants/me', { key, expect: 200 });
    await call('GET', '/api/tenants/me/members', { key, expect: 200 });
    const member = await call('POST', '/api/tenants/me/members', { key, body: { role: 'viewer', label: 'openapi' }, expect: 201 });
    await call('DELETE', `/api/tenants/me/members/${member.body.keyHash}`, { key, expect: 204, as: '/api/tenants/me/members/:keyHash' });
    await call('POST', '/api/settings/api-key/rotate', { key, expect: 201 });

    const device = await call('POST', '/api/auth/device', { body: { client_id: 'openapi-test' }, expect: 200 });
    await call('POST', '/api/auth/device/token', { body: { grant_type: 'urn:ietf:params:oauth:grant-type:device_code', device_code: device.body.device_code, client_id: 'openapi-test' }, expect: 400 });
    await call('POST', '/api/auth/device', { body: {}, expect: 400 });
    await call('POST', '/api/auth/device/authorize', { body: { user_code: device.body.user_code, action: 'deny' }, expect: 200 });

    await call('POST', '/api/plugins/activity/revoke', { body: { capability: 'db' }, expect: 200, as: '/api/plugins/:name/revoke' });
    await call('POST', '/api/plugins/activity/grant', { body: { capability: 'db' }, expect: 200, as: '/api/plugins/:name/grant' });
    await call('POST', '/api/plugins/activity/unload', { expect: 200, as: '/api/plugins/:name/unload' });
    await call('POST', '/api/plugins/load', { body: { name: 'activity' }, expect: 201 });
    await call('POST', '/api/plugins/nope/unload', { expect: 404, as: '/api/plugins/:name/unload' });

    const missing = operations(['kernel']).map((o) => o.key).filter((k) => !validated.has(k) && !['/metrics', '/mcp', '/ws'].some((door) => k.endsWith(` ${door}`)));
    assert.deepEqual(missing, [], 'every kernel route was answered and validated');
  });

  it('describes live responses of operations, feedback and exams truly', async () => {
    const collected = await call('POST', '/api/performance/collect', { expect: 200 });
    await call('POST', '/api/performance/collect', { expect: 200 });
    await call('GET', '/api/performance/snapshot', { expect: 200 });
    const from = new Date(Date.now() - 3_600_000).toISOString();
    await call('GET', `/api/performance/trends?metric=kernel.memory_bytes&from=${encodeURIComponent(from)}&to=${Date.now() + 1000}`, { expect: 200 });
    await call('GET', '/api/performance/trends?metric=nope', { expect: 400 });
    await call('GET', '/api/performance/regressions', { expect: 200 });
    await call('GET', '/api/performance/regressions?recent=1', { expect: 200 });
    await call('GET', '/api/performance/report', { expect: 200 });
    await call('GET', '/api/performance/metrics', { expect: 200 });
    await call('GET', '/api/performance/health', { expect: 200 });
    await call('GET', `/api/performance/health/${collected.body.health.id}`, { expect: 200, as: '/api/performance/health/:id' });
    await call('GET', '/api/performance/health/none', { expect: 404, as: '/api/performance/health/:id' });

    for (const path of ['/api/feedback/metrics', '/api/feedback/analysis', '/api/feedback/context']) await call('GET', `${path}?days=3`, { expect: 200 });
    await call('GET', '/api/feedback/metrics?days=0', { expect: 400 });

    await call('GET', '/api/exam/categories', { expect: 200 });
    const agent = await server.api('POST', '/api/agents', { body: { name: 'openapi-examinee', provider: 'echo' } });
    assert.equal(agent.status, 201, agent.text);
    await call('PUT', `/api/agents/${agent.body.id}/feedback-settings`, { body: { promptContext: false }, expect: 200, as: '/api/agents/:id/feedback-settings' });
    await call('GET', `/api/agents/${agent.body.id}/feedback-settings`, { expect: 200, as: '/api/agents/:id/feedback-settings' });
    const run = await call('POST', '/api/exam/run', { body: { agentId: agent.body.id, categories: ['instructions', 'protected_files'] }, expect: 202 });
    await waitFor('the exam to finish', async () => ((await server.api('GET', `/api/exam/runs/${run.body.id}`)).body.status !== 'running' ? true : undefined), 120_000);
    const detail = await call('GET', `/api/exam/runs/${run.body.id}`, { expect: 200, as: '/api/exam/runs/:id' });
    assert.equal(detail.body.status, 'completed', detail.text);
    await call('GET', `/api/exam/runs?agentId=${agent.body.id}`, { expect: 200 });
    await call('POST', '/api/exam/run', { body: { agentId: agent.body.id, categories: ['cooking'] }, expect: 400 });

    const missing = operations(['operations', 'feedback', 'exams']).map((o) => o.key).filter((k) => !validated.has(k));
    assert.deepEqual(missing, [], 'every route of the three was answered and validated');
  });

  it('describes live responses of projects and agents truly, success and error', async () => {
    const project = await call('POST', '/api/projects', { body: { name: 'openapi', workingDir: workDir, env_vars: { A: '1' } }, expect: 201 });
    await call('GET', '/api/projects?total=true', { expect: 200 });
    await call('GET', `/api/projects/${project.body.id}`, { expect: 200, as: '/api/projects/:id' });
    await call('PUT', `/api/projects/${project.body.id}`, { body: { description: 'changed' }, expect: 200, as: '/api/projects/:id' });
    const agent = await call('POST', '/api/agents', { body: { name: 'openapi-agent' }, expect: 201 });
    await call('GET', '/api/agents', { expect: 200 });
    await call('GET', `/api/agents/${agent.body.id}`, { expect: 200, as: '/api/agents/:id' });
    await call('GET', '/api/projects/00000000-0000-4000-8000-000000000000', { expect: 404, as: '/api/projects/:id' });
    await call('POST', '/api/projects', { body: { name: '' }, expect: 400 });
  });

  it('follows an unload and a load of an extension', async () => {
    assert.equal((await server.api('POST', '/api/plugins/analytics/unload')).status, 200);
    const without = (await server.api('GET', '/api/openapi.json')).body as Doc;
    assert.equal(without.paths['/api/analytics/overview'], undefined);
    assert.ok(without.paths['/api/agents']);
    const load = await server.api('POST', '/api/plugins/load', { body: { name: 'analytics' } });
    assert.equal(load.status, 201, load.text);
    const back = (await server.api('GET', '/api/openapi.json')).body as Doc;
    assert.ok(back.paths['/api/analytics/overview']?.get);
  });

  it('is rendered by the api-docs extension, which reads the route table only while it holds route_table', async () => {
    assert.deepEqual(doc.paths['/api/openapi.json']?.get?.tags, ['api-docs']);
    assert.deepEqual(doc.paths['/metrics']?.get?.tags, ['prometheus']);
    assert.equal((await server.api('POST', '/api/plugins/api-docs/revoke', { body: { capability: 'route_table' } })).status, 200);
    const denied = await server.api('GET', '/api/openapi.json');
    assert.equal(denied.body.code, 'CAPABILITY_DENIED', denied.text);
    assert.match(denied.body.error, /capability "route_table" is not granted to api-docs/);
    assert.equal((await server.api('POST', '/api/plugins/api-docs/grant', { body: { capability: 'route_table' } })).status, 200);
    assert.equal((await server.api('GET', '/api/openapi.json')).status, 200);
  });

  it('refuses a manifest whose [server.openapi] names a route it does not declare', async () => {
    const toml = '[plugin]\nname = "x"\nversion = "1.0.0"\nprotocol = "cli-v1"\n[server]\nmain = "main.ts"\nroutes = ["GET /api/x"]\n[server.openapi."GET /api/y"]\nsummary = "nope"\n';
    await assert.rejects(parseManifest(toml, workDir), /\[server\.openapi\] names "GET \/api\/y", which is not among \[server\] routes/);
    const missingSchema = toml.replace('GET /api/y"]\nsummary = "nope"', 'GET /api/x"]\nresponse = "schemas/none.json"');
    await assert.rejects(parseManifest(missingSchema, workDir), /response schema of GET \/api\/x .*none\.json cannot be read/);
    const both = toml.replace('GET /api/y"]\nsummary = "nope"', 'GET /api/x"]\nresponse = "schemas/none.json"\ncontent_type = "image/png"');
    await assert.rejects(parseManifest(both, workDir), /either a JSON body \(response\) or another content_type, not both/);
    const image = toml.replace('GET /api/y"]\nsummary = "nope"', 'GET /api/x"]\ncontent_type = "image/png"');
    assert.equal((await parseManifest(image, workDir)).server!.routes[0]!.doc!.contentType, 'image/png');
  });

  it('inlines the files a schema refers to, within the extension\'s folder and without circles', async () => {
    const dir = await mkdtemp(join(workDir, 'refs-'));
    await mkdir(join(dir, 'schemas'));
    const write = (name: string, schema: object) => writeFile(join(dir, 'schemas', name), JSON.stringify(schema));
    await write('record.json', { type: 'object', required: ['id'], properties: { id: { $ref: '#/$defs/id' } }, $defs: { id: { type: 'string' } } });
    await write('list.json', { type: 'object', properties: { items: { type: 'array', items: { $ref: 'record.json' } } } });
    await write('loop-a.json', { $ref: 'loop-b.json' });
    await write('loop-b.json', { $ref: 'loop-a.json' });
    await write('outside.json', { $ref: '../../elsewhere.json' });
    const toml = (response: string) => `[plugin]\nname = "x"\nversion = "1.0.0"\nprotocol = "cli-v1"\n[server]\nmain = "main.ts"\nroutes = ["GET /api/x"]\n[server.openapi."GET /api/x"]\nresponse = "schemas/${response}"\n`;
    const manifest = await parseManifest(toml('list.json'), dir);
    assert.deepEqual(manifest.server!.routes[0]!.doc!.response, { type: 'object', properties: { items: { type: 'array', items: { type: 'object', required: ['id'], properties: { id: { type: 'string' } } } } } });
    await assert.rejects(parseManifest(toml('loop-a.json'), dir), /go round in a circle/);
    await assert.rejects(parseManifest(toml('outside.json'), dir), /leaves the extension's folder/);
  });

  it('with ROOST_CHECK_RESPONSES (as every test server runs), refuses a success body its declared schema does not allow', async () => {
    assert.equal((await loadFixture(server, 'fx-described')).status, 201);
    const good = await server.api('GET', '/api/fx-described/say?word=kestrel');
    assert.equal(good.status, 200, good.text);
    assert.deepEqual(good.body, { said: 'kestrel' });
    const bad = await server.api('GET', '/api/fx-described/say');
    assert.equal(bad.status, 500);
    assert.equal(bad.body.code, 'RESPONSE_MISMATCH');
    assert.match(bad.body.error, /fx-described answered GET \/api\/fx-described\/say .*response\.said must be string/);

    // Without the setting nothing is checked (a production server pays nothing for it).
    const unchecked = await startTestServer({ env: { ROOST_CHECK_RESPONSES: '0' } });
    try {
      assert.equal((await loadFixture(unchecked, 'fx-described')).status, 201);
      const passed = await unchecked.api('GET', '/api/fx-described/say');
      assert.equal(passed.status, 200);
      assert.deepEqual(passed.body, { said: 42 });
    } finally {
      await unchecked.cleanup();
    }
  });
});
