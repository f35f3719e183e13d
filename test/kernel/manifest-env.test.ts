// Secrets and settings are declared in each plugin.toml ([server] secrets, [server.settings]), not
// listed in the kernel: a declared setting reaches its own extension only, and no manifest may declare
// one of the kernel's variables (its database URL, its keys) or a name the kernel routes by prefix.
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { parseManifest, readManifest } from '../../kernel/host/manifest.js';
import { extensionSettings } from '../../kernel/host/extension-settings.js';
import { packageRoot } from '../../lib/paths.js';

const env = { ROOST_ALGOD_URL: 'http://127.0.0.1:9/algod', ROOST_EXT_CHAINCHAT_ALGOD_TOKEN: 'prefixed', ROOST_ALGOD_TOKEN: 'named', ROOST_SEARCH_API_KEY: 'search' };
const extension = (name: string) => readManifest(join(packageRoot, 'extensions', name));
const manifest = (server: string) => parseManifest(`[plugin]\nname = "fx-env"\nversion = "1.0.0"\nprotocol = "cli-v1"\n\n[server]\nmain = "main.mjs"\n${server}`, '/tmp');

describe('secrets and settings declared in plugin.toml', () => {
  it("hands a named setting to the extension that declares it, the prefixed variable winning, and to no other", async () => {
    const chainchat = await extension('chainchat');
    assert.deepEqual(extensionSettings(chainchat, env), { ALGOD_URL: 'http://127.0.0.1:9/algod', ALGOD_TOKEN: 'prefixed' });
    for (const other of ['research', 'sessions', 'dashboard']) {
      assert.deepEqual(extensionSettings(await extension(other), env), {}, `${other} gets none of chainchat's settings`);
    }
  });

  it("lists each extension's secrets in its own manifest", async () => {
    assert.deepEqual((await extension('research')).server?.secrets, ['ROOST_SEARCH_API_URL', 'ROOST_SEARCH_API_KEY', 'ROOST_CHROMIUM_PATH']);
    assert.deepEqual((await extension('dashboard')).server?.secrets, []);
  });

  it("refuses a manifest that declares a variable of the kernel's", async () => {
    for (const [declared, name] of [['secrets = ["ROOST_DATABASE_URL"]', 'ROOST_DATABASE_URL'], ['secrets = ["ROOST_API_KEY"]', 'ROOST_API_KEY'], ['secrets = ["ROOST_EXTENSION_KEY"]', 'ROOST_EXTENSION_KEY'],
      ['[server.settings]\nKEY = "ROOST_SEALING_KEY"', 'ROOST_SEALING_KEY'], ['[server.settings]\nOTHER = "ROOST_EXT_CHAINCHAT_ALGOD_URL"', 'ROOST_EXT_CHAINCHAT_ALGOD_URL']] as const) {
      await assert.rejects(manifest(declared), (err: Error & { code?: string }) => err.code === 'VALIDATION_ERROR' && err.message.includes(name), declared);
    }
    assert.deepEqual((await manifest('secrets = ["MY_SERVICE_TOKEN"]')).server?.secrets, ['MY_SERVICE_TOKEN']);
  });
});
