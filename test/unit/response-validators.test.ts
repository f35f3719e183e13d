// The response validators the build precompiles (scripts/build-response-validators.mjs): one for every
// response schema of every in-tree extension route, each giving the verdict and the errors ajv gives
// when it compiles the schema where used; a schema changed since the build finds none.
import assert from 'node:assert/strict';
import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { preparedManifest } from '../../kernel/host/prepared-manifests.js';
import { precompiledResponseValidator } from '../../kernel/http/response-validators.js';
import { packageRoot } from '../../lib/paths.js';
import { describeErrors, schemaValidator } from '../../protocol/validate.js';

const extensionsDir = join(packageRoot, 'extensions');
const manifests = readdirSync(extensionsDir)
  .filter((name) => !name.startsWith('_') && existsSync(join(extensionsDir, name, 'plugin.toml')))
  .map((name) => preparedManifest(join(extensionsDir, name)))
  .filter((manifest) => manifest !== undefined);

describe('precompiled response validators', () => {
  it('cover every response schema of the in-tree extensions', () => {
    assert.ok(manifests.length > 25, 'the build prepared the in-tree manifests');
    const missing = manifests.flatMap((m) =>
      (m.server?.routes ?? []).filter((r) => r.doc?.response && !precompiledResponseValidator(m.name, r.doc.response)).map((r) => `${m.name}: ${r.method} ${r.path}`),
    );
    assert.deepEqual(missing, []);
  });

  it('answer as ajv does, errors included', () => {
    const agents = manifests.find((m) => m.name === 'agents')!;
    const schema = agents.server!.routes.find((r) => r.method === 'GET' && r.path === '/api/agents')!.doc!.response!;
    const precompiled = precompiledResponseValidator('agents', schema)!;
    const compiled = schemaValidator(schema);
    const agent = { id: '0b5f7a52-8a7e-4a55-9d0e-2f8b2f1c8a11', name: 'a', description: '', model: 'm', provider: 'echo', systemPrompt: '', permissionMode: 'default', wallet: `rw_${'0'.repeat(40)}`, tenant: 't', mcp_tool_permissions: [], createdAt: '2026-11-29T12:00:00.000Z', updatedAt: '2026-11-29T12:00:00.000Z' };
    const bodies = [
      { agents: [agent], hasMore: false },
      { agents: [{ ...agent, id: 'not-a-uuid', provider: 'other' }], hasMore: false, extra: 1 },
      { agents: 'none' },
    ];
    for (const body of bodies) {
      assert.equal(precompiled(body), compiled(body), JSON.stringify(body));
      assert.equal(describeErrors(precompiled.errors ?? [], 'response'), describeErrors(compiled.errors ?? [], 'response'));
    }
    assert.equal(precompiled(bodies[0]), true);
    assert.equal(precompiled(bodies[1]), false);
    assert.match(describeErrors(precompiled.errors ?? [], 'response'), /response\.extra is not allowed/);
  });

  it('have none for a schema changed since the build', () => {
    const agents = manifests.find((m) => m.name === 'agents')!;
    const schema = agents.server!.routes.find((r) => r.method === 'GET' && r.path === '/api/agents')!.doc!.response!;
    assert.equal(precompiledResponseValidator('agents', { ...schema, required: [] }), undefined);
    assert.equal(precompiledResponseValidator('no-such-extension', schema), undefined);
  });
});
