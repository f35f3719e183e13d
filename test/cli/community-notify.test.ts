// The default notify plugin against a loopback webhook that records what it is sent: --setup stores the
// URL in the plugin's store, a message is posted as {"text": …}, ROOST_NOTIFY_WEBHOOK wins, and a
// failing or missing webhook is a clear error. The webhook's secret path never appears in output.
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, test } from 'node:test';
import { tempGitRepo } from '../helpers/cli.js';
import { assertSchema } from './json-schema.js';
import { pluginHome, type PluginHome } from './plugins-env.js';

describe('default plugin: notify', () => {
  let env: PluginHome;
  let repo: Awaited<ReturnType<typeof tempGitRepo>>;
  let server: Server;
  let origin: string;
  const received: Array<{ path: string; body: unknown }> = [];

  before(async () => {
    server = createServer(async (req, res) => {
      let text = '';
      for await (const chunk of req) text += chunk;
      received.push({ path: req.url ?? '', body: JSON.parse(text) });
      const failing = req.url?.startsWith('/broken');
      res.writeHead(failing ? 500 : 200, { 'content-type': 'text/plain' });
      res.end(failing ? 'channel_is_archived' : 'ok');
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    env = await pluginHome();
    repo = await tempGitRepo();
    const install = await env.run(['plugins', 'install', '--community'], repo.work);
    assert.equal(install.code, 0, install.stderr);
  });
  after(async () => {
    server.close();
    await repo.cleanup();
    await env.cleanup();
  });

  test('without a webhook, notify says how to set one up (exit 2); --setup without a terminal exits 2', async () => {
    const none = await env.run(['notify', 'hello', '--json'], repo.work);
    assert.equal(none.code, 2);
    assert.match(assertSchema('error', none.json).error.message, /no webhook: run roost notify --setup/);
    const ask = await env.run(['notify', '--setup', '--json'], repo.work);
    assert.equal(ask.code, 2);
    assert.match(assertSchema('error', ask.json).error.message, /Webhook URL: no terminal to ask/);
  });

  test('--setup stores the webhook; a message is posted to it as {"text": …}', async () => {
    const setup = await env.run(['notify', '--setup', '--webhook', `${origin}/services/T000/B000/s3cr3tpath`, '--json'], repo.work);
    assert.equal(setup.code, 0, setup.stderr);
    assert.deepEqual(assertSchema('notify', setup.json), { schema_version: 1, ok: true, configured: true, webhook: origin });
    const sent = await env.run(['notify', 'deploy', 'of', 'v1.2', 'done', '--json'], repo.work);
    assert.equal(sent.code, 0, sent.stderr);
    assert.deepEqual(assertSchema('notify', sent.json), { schema_version: 1, ok: true, sent: true, webhook: origin, text: 'deploy of v1.2 done' });
    assert.deepEqual(received.at(-1), { path: '/services/T000/B000/s3cr3tpath', body: { text: 'deploy of v1.2 done' } });
    assert.ok(![setup.stdout, sent.stdout].some((out) => out.includes('s3cr3tpath')), 'the secret path is never printed');
  });

  test('ROOST_NOTIFY_WEBHOOK wins; a webhook error exits 1 with its answer', async () => {
    const broken = await env.run(['notify', 'hello', '--json'], repo.work, { ROOST_NOTIFY_WEBHOOK: `${origin}/broken/hook` });
    assert.equal(broken.code, 1);
    assert.match(assertSchema('error', broken.json).error.message, /the webhook at http:\/\/127\.0\.0\.1:\d+ answered 500: channel_is_archived/);
    assert.deepEqual(received.at(-1), { path: '/broken/hook', body: { text: 'hello' } });
  });

  test('bad input: no message, a message with --setup, --webhook alone, a URL that is not http(s) exit 2', async () => {
    for (const args of [['notify'], ['notify', '--setup', '--webhook', `${origin}/x`, 'hi'], ['notify', 'hi', '--webhook', `${origin}/x`], ['notify', '--setup', '--webhook', 'ftp://example.test/x']]) {
      const run = await env.run([...args, '--json'], repo.work);
      assert.equal(run.code, 2, args.join(' '));
      assert.equal(assertSchema('error', run.json).error.code, 'USAGE');
    }
  });
});
