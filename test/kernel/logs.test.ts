// The log as operators get it: with stderr not a terminal (a pipe, as here) and no ROOST_LOG_FORMAT,
// every line the server writes is one JSON object, and the lines made while a request is served (the
// access record, an extension's log for it, what an extension writes to stderr while serving it) carry
// the request's id, the one its X-Request-Id response header names.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { loadFixture, waitForLog } from '../fixtures/extensions/helpers.js';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { waitFor } from '../helpers/wait.js';
import { loadConfig } from '../../kernel/config.js';
import { stderrLevel } from '../../lib/stderr-level.js';
import { prettyFactory } from 'pino-pretty';

describe('structured logs', () => {
  let server: TestServer;
  const records = () => server.log().split('\n').filter((line) => line.trim() !== '').map((line) => {
    try {
      return JSON.parse(line) as Record<string, unknown>;
    } catch {
      throw new Error(`a log line is not JSON: ${line}`);
    }
  });

  before(async () => {
    // '' is no format given: the server's own default (the test helper asks for text otherwise).
    server = await startTestServer({ env: { ROOST_LOG_FORMAT: '' } });
    assert.equal((await loadFixture(server, 'fx-probe')).status, 201);
    assert.equal((await loadFixture(server, 'fx-frame')).status, 201);
  });
  after(() => server?.cleanup());

  it('writes one JSON object per line, each with time, level and msg', async () => {
    await server.api('GET', '/api/health');
    await waitForLog(server, /"msg":"request".*"path":"\/api\/health"/);
    const all = records();
    assert.ok(all.length > 3);
    for (const record of all) {
      assert.equal(typeof record.time, 'string');
      assert.ok(!Number.isNaN(Date.parse(String(record.time))));
      assert.equal(typeof record.level, 'string');
      assert.equal(typeof record.msg, 'string');
    }
  });

  it("ties the access record and an extension's log line to the request id of the response", async () => {
    const res = await server.api('POST', '/api/fx-probe/notify', { headers: { 'x-request-id': 'trace-abc-123' }, body: { served: true, message: { type: 'log', level: 'warn', message: 'probe noticed something' } } });
    assert.equal(res.status, 202, res.text);
    assert.equal(res.headers.get('x-request-id'), 'trace-abc-123');
    await waitForLog(server, /probe noticed something/);
    await waitForLog(server, /"requestId":"trace-abc-123".*"status":202|"status":202.*"requestId":"trace-abc-123"/);
    const mine = records().filter((r) => r.requestId === 'trace-abc-123');
    const line = mine.find((r) => String(r.msg).includes('probe noticed something'));
    assert.ok(line, JSON.stringify(mine));
    assert.equal(line.level, 'warn');
    assert.equal(line.extension, 'fx-probe');
    const access = mine.find((r) => r.msg === 'request');
    assert.deepEqual({ method: access?.method, path: access?.path, status: access?.status }, { method: 'POST', path: '/api/fx-probe/notify', status: 202 });
    assert.deepEqual({ level: access?.level, log: access?.log }, { level: 'info', log: 'access' });
  });

  it("ties a log line of an extension called for the request to the request's id too", async () => {
    assert.equal((await server.api('POST', '/api/plugins/fx-probe/grant', { body: { capability: 'call' } })).status, 200);
    const logged = { type: 'log', level: 'warn', message: 'probe called for the request' };
    const call = { type: 'call', method: 'POST', path: '/api/fx-probe/notify', body: { served: true, message: logged } };
    const res = await server.api('POST', '/api/fx-probe/host', { headers: { 'x-request-id': 'trace-call-7' }, body: { message: call } });
    assert.equal(res.status, 200, res.text);
    await waitForLog(server, /probe called for the request/);
    const line = records().find((r) => String(r.msg).includes('probe called for the request'));
    assert.equal(line?.requestId, 'trace-call-7', JSON.stringify(line));
  });

  it('uses only level names pino-compatible tools know: pino-pretty shows every record with its level', async () => {
    const pretty = prettyFactory({ colorize: false });
    const lines = server.log().split('\n').filter((line) => line.trim() !== '');
    for (const line of lines) assert.match(pretty(line), /\b(DEBUG|INFO|WARN|ERROR|FATAL):/, `pino-pretty reads the level of ${line}`);
  });

  it("logs what an extension writes to stderr at the level it reads as: a library's warning is a warning", () => {
    assert.equal(stderrLevel('(node:4242) [DEP0040] DeprecationWarning: The `punycode` module is deprecated.'), 'warn');
    assert.equal(stderrLevel('(node:4242) ExperimentalWarning: VM Modules is an experimental feature'), 'warn');
    assert.equal(stderrLevel('Warning: a promise was rejected with a non-error'), 'warn');
    assert.equal(stderrLevel('TypeError: Cannot read properties of undefined'), 'error');
    assert.equal(stderrLevel('    at main (file:///extension/main.js:3:9)'), 'error');
    assert.equal(stderrLevel('fx-frame says kestrel'), 'info');
    assert.equal(stderrLevel('cleared the warning banner'), 'info');
  });

  it('ties what an extension writes to stderr while serving a request to that request, and no other line', async () => {
    const res = await server.api('GET', '/api/fx-frame/say?word=kestrel', { headers: { 'x-request-id': 'trace-stderr-9' } });
    assert.equal(res.status, 200, res.text);
    await waitForLog(server, /fx-frame says kestrel/);
    const line = records().find((r) => String(r.msg).includes('fx-frame says kestrel'));
    assert.equal(line?.requestId, 'trace-stderr-9', JSON.stringify(line));
    assert.equal(line?.extension, 'fx-frame');
    // Written at start-up, serving nothing: forwarded as the raw line it is, without an id.
    const setup = records().find((r) => String(r.msg).includes('fx-frame: set up, serving nothing yet'));
    assert.ok(setup, 'the start-up line is in the log');
    assert.equal(setup.requestId, undefined);
  });

  it("leaves a line no request is served for without a request id (not the one that started the extension)", async () => {
    await server.api('POST', '/api/fx-probe/notify', { body: { message: { type: 'log', level: 'info', message: 'probe on its own' } } });
    await waitForLog(server, /probe on its own/);
    const line = records().find((r) => String(r.msg).includes('probe on its own'));
    assert.equal(line?.requestId, undefined, JSON.stringify(line));
  });

  it('gives a request without a sane X-Request-Id a new one', async () => {
    const res = await server.api('GET', '/api/health', { headers: { 'x-request-id': 'bad id with spaces' } });
    const id = res.headers.get('x-request-id') ?? '';
    assert.match(id, /^[0-9a-f-]{36}$/);
    await waitForLog(server, new RegExp(`"requestId":"${id}"`));
  });

  it('takes JSON by default when stderr is no terminal, text on a terminal, ROOST_LOG_FORMAT over both; refuses an unknown one', () => {
    assert.equal(loadConfig({}, {}, false).logFormat, 'json');
    assert.equal(loadConfig({}, {}, true).logFormat, 'text');
    assert.equal(loadConfig({}, { ROOST_LOG_FORMAT: 'text' }, false).logFormat, 'text');
    assert.equal(loadConfig({}, { ROOST_LOG_FORMAT: 'json' }, true).logFormat, 'json');
    assert.throws(() => loadConfig({}, { ROOST_LOG_FORMAT: 'xml' }), /ROOST_LOG_FORMAT must be "text" or "json", got "xml"/);
  });

  it('keeps a terminal for people: the access log goes to <data>/logs/access.log there, to stderr in a pipeline, or where ROOST_ACCESS_LOG says', () => {
    const flags = { dataDir: '/srv/roost' };
    assert.deepEqual(loadConfig(flags, {}, true).accessLog, { to: 'file', path: '/srv/roost/logs/access.log' });
    assert.deepEqual(loadConfig(flags, {}, false).accessLog, { to: 'stderr' });
    assert.deepEqual(loadConfig(flags, { ROOST_ACCESS_LOG: 'stderr' }, true).accessLog, { to: 'stderr' });
    assert.deepEqual(loadConfig(flags, { ROOST_ACCESS_LOG: 'on' }, true).accessLog, { to: 'stderr' });
    assert.deepEqual(loadConfig(flags, { ROOST_ACCESS_LOG: 'off' }, false).accessLog, { to: 'off' });
    assert.deepEqual(loadConfig(flags, { ROOST_ACCESS_LOG: '/var/log/roost-access.log' }, false).accessLog, { to: 'file', path: '/var/log/roost-access.log' });
  });
});

describe('the access log in a file', () => {
  let server: TestServer;
  let file: string;
  before(async () => {
    file = join(await mkdtemp(join(tmpdir(), 'roost-access-')), 'nested', 'access.log');
    server = await startTestServer({ env: { ROOST_ACCESS_LOG: file } });
  });
  after(async () => {
    await server?.cleanup();
    await rm(dirname(dirname(file)), { recursive: true, force: true });
  });

  it('writes each answered request to the file, and none to the terminal', async () => {
    const res = await server.api('GET', '/api/health');
    const id = res.headers.get('x-request-id');
    const line = await waitFor('the request in the access log file', async () => (await readFile(file, 'utf8').catch(() => '')).split('\n').find((l) => l.includes(`id=${id}`)));
    assert.match(line, /access GET \/api\/health 200 [\d.]+ms tenant=\S+ id=/);
    assert.doesNotMatch(server.log(), / access GET /);
  });
});
