// HTTP conventions of the front: 405 with Allow for a known path and the wrong method (kernel and
// extension routes alike), OPTIONS answered with Allow, enum errors that list the allowed values, a
// request id on every response, and an access log line per request that never holds a key or a query.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { waitForLog } from '../fixtures/extensions/helpers.js';
import { startTestServer, type TestServer } from '../helpers/server.js';

describe('HTTP conventions', () => {
  let server: TestServer;
  before(async () => {
    server = await startTestServer();
  });
  after(() => server.cleanup());

  it('answers 405 with Allow for a path served under other methods, and 404 for an unknown path', async () => {
    const extension = await server.api('PATCH', '/api/projects');
    assert.equal(extension.status, 405);
    assert.equal(extension.body.code, 'METHOD_NOT_ALLOWED');
    assert.equal(extension.headers.get('allow'), 'GET, HEAD, POST');
    const withParam = await server.api('POST', '/api/projects/some-id');
    assert.equal(withParam.status, 405);
    assert.equal(withParam.headers.get('allow'), 'DELETE, GET, HEAD, PUT');
    const kernel = await server.api('DELETE', '/api/health');
    assert.equal(kernel.status, 405);
    assert.match(kernel.headers.get('allow') ?? '', /^GET, HEAD/);
    const unknown = await server.api('PATCH', '/api/no-such-thing');
    assert.equal(unknown.status, 404);
    assert.equal(unknown.body.code, 'ROUTE_NOT_FOUND');
    assert.equal(unknown.headers.get('allow'), null);
  });

  it('lists the allowed values when an enum field is wrong', async () => {
    const res = await server.api('POST', '/api/agents', { body: { name: 'enum-check', provider: 'openai' } });
    assert.equal(res.status, 400);
    assert.equal(res.body.code, 'VALIDATION_ERROR');
    assert.match(res.body.error, /provider must be one of "anthropic", "ollama", "echo"/);
  });

  it('answers OPTIONS with the allowed methods', async () => {
    const res = await server.api('OPTIONS', '/api/agents');
    assert.equal(res.status, 204);
    assert.equal(res.headers.get('allow'), 'GET, HEAD, POST');
  });

  it('names every response with a request id: the caller\'s when sane, a new one otherwise', async () => {
    const given = await server.api('GET', '/api/health', { headers: { 'x-request-id': 'trace-42.a:b' } });
    assert.equal(given.headers.get('x-request-id'), 'trace-42.a:b');
    const fresh = await server.api('GET', '/api/projects', { headers: { 'x-request-id': 'bad id with spaces' } });
    assert.match(fresh.headers.get('x-request-id') ?? '', /^[0-9a-f-]{36}$/);
    const failed = await server.api('GET', '/api/projects/nope');
    assert.equal(failed.status, 404);
    assert.match(failed.headers.get('x-request-id') ?? '', /^[0-9a-f-]{36}$/);
  });

  it('logs each request once answered: method, path, status, duration, tenant, id; never the key or the query', async () => {
    const key = 'rk_not_a_real_key_0123456789abcdef';
    await server.api('GET', '/api/projects?search=secret-query', { headers: { 'x-request-id': 'logged-1' } });
    await server.api('GET', '/api/projects', { key, headers: { 'x-request-id': 'logged-2' } });
    await waitForLog(server, / access GET \/api\/projects 200 \d+\.\dms tenant=default id=logged-1 client=127\.0\.0\.1\n/);
    await waitForLog(server, / access GET \/api\/projects 403 \d+\.\dms tenant=- id=logged-2 client=127\.0\.0\.1\n/);
    assert.doesNotMatch(server.log(), new RegExp(`${key}|secret-query`));
  });
});
