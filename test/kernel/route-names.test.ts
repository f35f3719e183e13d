// Each route is named in plugin.toml, in its [server.openapi] entry and as its handler's key: an
// extension whose handlers and manifest disagree fails to start, with a message naming it and each route
// (and is not restarted: no restart heals it); a route without an OpenAPI entry is reported when the
// extension is registered; the kernel's own routes and their declarations (kernel-docs.ts) must agree. Every in-tree extension agreeing is proved by the self-test, which starts
// them all (test/kernel/selftest.test.ts).
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import Router from '@koa/router';
import type { State } from '../../kernel/http/app.js';
import { healthAnswers } from '../../kernel/http/routes/health.js';
import { assertEveryRouteDeclared, registerKernelRoutes } from '../../kernel/http/routes/index.js';
import type { Kernel } from '../../kernel/kernel.js';
import { loadFixture, pluginInfo, waitForLog } from '../fixtures/extensions/helpers.js';
import { startTestServer, type TestServer } from '../helpers/server.js';

describe('each route named once, or checked', () => {
  let server: TestServer;
  before(async () => {
    server = await startTestServer();
  });
  after(() => server?.cleanup());

  it('fails the start of an extension whose handlers and manifest name different routes, naming them', async () => {
    assert.equal((await loadFixture(server, 'fx-misnamed')).status, 201);
    await waitForLog(server, /extension fx-misnamed: GET \/api\/fx-misnamed\/declared-only has no \[server\.openapi\] entry/);
    const res = await server.api('GET', '/api/fx-misnamed/hello');
    assert.equal(res.status, 503, res.text);
    assert.equal(res.body.code, 'EXTENSION_UNAVAILABLE');
    const why = /extension fx-misnamed failed: routes disagree: plugin\.toml declares GET \/api\/fx-misnamed\/declared-only but it has no handler for it; it has a handler for GET \/api\/fx-misnamed\/handled-only, which plugin\.toml does not declare/;
    assert.match(res.body.error, why);
    const info = await pluginInfo(server, 'fx-misnamed');
    assert.equal(info.state, 'failed');
    const health = (await server.api('GET', '/api/health')).body;
    assert.match(health.extensionDetail['fx-misnamed'].lastError, /routes disagree/);
    assert.equal(health.extensionDetail['fx-misnamed'].restarts, 0);
    const ready = await server.api('GET', '/health/ready');
    assert.equal(ready.status, 503);
    assert.ok(ready.body.reasons.some((reason: string) => /fx-misnamed failed: routes disagree/.test(reason)), JSON.stringify(ready.body));
    assert.equal((await server.api('POST', '/api/plugins/fx-misnamed/unload')).status, 200);
  });

  it("checks the kernel's own routes against kernel-docs.ts: each one missing there, or there and not served, is named", () => {
    const router = new Router<State>();
    registerKernelRoutes(router, {} as Kernel, healthAnswers({} as Kernel)); // they agree (the handlers are not run)
    router.get('/api/undeclared', () => undefined);
    assert.throws(() => assertEveryRouteDeclared(router), /GET \/api\/undeclared has no entry in kernel-docs\.ts/);
    const short = new Router<State>();
    short.get('/health/live', () => undefined);
    assert.throws(() => assertEveryRouteDeclared(short), /GET \/api\/plugins is in kernel-docs\.ts but no kernel route/);
  });

  it('starts an extension whose handlers are exactly its routes', async () => {
    assert.equal((await loadFixture(server, 'fx-described')).status, 201);
    assert.equal((await server.api('GET', '/api/fx-described/say?word=wren')).status, 200);
  });
});
