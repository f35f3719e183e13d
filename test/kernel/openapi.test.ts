// GET /api/openapi.json: a valid OpenAPI 3.1 document holding every route the kernel serves and every
// extension declares; live responses validate against the schemas it gives; it follows unload and load.
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { Validator } from '@seriousme/openapi-schema-validator';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import { parseManifest, readManifest } from '../../kernel/host/manifest.js';
import { startTestServer, type ApiResponse, type TestServer } from '../helpers/server.js';

type Doc = { paths: Record<string, Record<string, { summary?: string; tags: string[]; responses: Record<string, { content?: Record<string, { schema: object }> }> }>>; components: { schemas: Record<string, object> } };

const openApiPath = (path: string) => path.replace(/:(\w+)/g, '{$1}');

describe('GET /api/openapi.json', () => {
  let server: TestServer;
  let workDir: string;
  let doc: Doc;
  const ajv = addFormats.default(new Ajv2020({ strict: false, allErrors: true }));

  /** Validates a live response against what the document says of its route and status. */
  const assertConforms = (method: string, path: string, res: ApiResponse) => {
    const operation = doc.paths[openApiPath(path)]?.[method.toLowerCase()];
    assert.ok(operation, `${method} ${path} is in the document`);
    const declared = operation.responses[String(res.status)] ?? operation.responses.default!;
    const schema = declared.content?.['application/json']?.schema;
    assert.ok(schema, `${method} ${path} ${res.status} has a JSON schema`);
    const resolved = JSON.parse(JSON.stringify(schema).replaceAll('"#/components/schemas/Error"', '"urn:roost:error"'));
    const validate = ajv.compile(resolved);
    assert.ok(validate(res.body), `${method} ${path} ${res.status}: ${ajv.errorsText(validate.errors)} in ${res.text.slice(0, 300)}`);
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
          checked++;
        }
      }
    }
    assert.ok(checked > 40, `${checked} extension routes checked`);
  });

  it("gives every kernel route a summary", () => {
    const kernelOperations = Object.entries(doc.paths).flatMap(([path, item]) => Object.entries(item).filter(([, op]) => op.tags[0] === 'kernel').map(([method, op]) => ({ path, method, op })));
    assert.ok(kernelOperations.length >= 20);
    for (const { path, method, op } of kernelOperations) assert.ok(op.summary, `${method} ${path} has a summary`);
    assert.ok(doc.paths['/api/openapi.json']?.get);
  });

  it('describes live responses truly: kernel, projects and agents, success and error', async () => {
    for (const path of ['/health/live', '/health/ready', '/api/health', '/api/operational-mode']) assertConforms('GET', path, await server.api('GET', path));

    const project = await server.api('POST', '/api/projects', { body: { name: 'openapi', workingDir: workDir, env_vars: { A: '1' } } });
    assert.equal(project.status, 201, project.text);
    assertConforms('POST', '/api/projects', project);
    assertConforms('GET', '/api/projects', await server.api('GET', '/api/projects?total=true'));
    assertConforms('GET', '/api/projects/:id', await server.api('GET', `/api/projects/${project.body.id}`));
    assertConforms('PUT', '/api/projects/:id', await server.api('PUT', `/api/projects/${project.body.id}`, { body: { description: 'changed' } }));

    const agent = await server.api('POST', '/api/agents', { body: { name: 'openapi-agent' } });
    assert.equal(agent.status, 201, agent.text);
    assertConforms('POST', '/api/agents', agent);
    assertConforms('GET', '/api/agents', await server.api('GET', '/api/agents'));
    assertConforms('GET', '/api/agents/:id', await server.api('GET', `/api/agents/${agent.body.id}`));

    const missing = await server.api('GET', '/api/projects/00000000-0000-4000-8000-000000000000');
    assert.equal(missing.status, 404);
    assertConforms('GET', '/api/projects/:id', missing);
    const bad = await server.api('POST', '/api/projects', { body: { name: '' } });
    assert.equal(bad.status, 400);
    assertConforms('POST', '/api/projects', bad);
  });

  it('follows an unload and a load of an extension', async () => {
    assert.equal((await server.api('POST', '/api/plugins/projects/unload')).status, 200);
    const without = (await server.api('GET', '/api/openapi.json')).body as Doc;
    assert.equal(without.paths['/api/projects'], undefined);
    assert.ok(without.paths['/api/agents']);
    const load = await server.api('POST', '/api/plugins/load', { body: { name: 'projects' } });
    assert.equal(load.status, 201, load.text);
    const back = (await server.api('GET', '/api/openapi.json')).body as Doc;
    assert.ok(back.paths['/api/projects']?.post);
  });

  it('refuses a manifest whose [server.openapi] names a route it does not declare', async () => {
    const toml = '[plugin]\nname = "x"\nversion = "1.0.0"\nprotocol = "cli-v1"\n[server]\nmain = "main.ts"\nroutes = ["GET /api/x"]\n[server.openapi."GET /api/y"]\nsummary = "nope"\n';
    await assert.rejects(parseManifest(toml, workDir), /\[server\.openapi\] names "GET \/api\/y", which is not among \[server\] routes/);
    const missingSchema = toml.replace('GET /api/y"]\nsummary = "nope"', 'GET /api/x"]\nresponse = "schemas/none.json"');
    await assert.rejects(parseManifest(missingSchema, workDir), /response schema of GET \/api\/x .*none\.json cannot be read/);
  });
});
