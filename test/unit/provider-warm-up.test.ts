// What a spare agent runner does before its first session (lib/providers/warm-up.ts): each provider's
// client makes one call over real HTTP to a canned answer the process serves itself, so Node's HTTP
// client is loaded and has run before a session's first turn, which would otherwise pay for it.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { pathToFileURL } from 'node:url';
import { preloadDriver } from '../../lib/providers/index.js';
import { answerOnLoopback } from '../../lib/providers/warm-up.js';

const providers = pathToFileURL(join(import.meta.dirname, '..', '..', 'dist', 'lib', 'providers', 'index.js')).href;

/** Whether a fresh node has loaded Node's HTTP client (undici) after preloading `provider`'s driver. */
function httpClientLoadedBy(provider: string): boolean {
  const script = `import { preloadDriver } from ${JSON.stringify(providers)};
    const loaded = () => process.moduleLoadList.some((m) => m.includes('undici'));
    if (loaded()) throw new Error('undici was loaded before the preload');
    await preloadDriver(${JSON.stringify(provider)});
    process.stdout.write(String(loaded()));`;
  return execFileSync(process.execPath, ['--input-type=module', '-e', script], { encoding: 'utf8' }) === 'true';
}

describe('provider warm-up', () => {
  it('serves its canned answer on loopback until closed', async () => {
    const answer = await answerOnLoopback('{"ok":true}\n', 'application/x-ndjson');
    assert.ok(answer);
    const res = await fetch(`${answer.url}/api/chat`, { method: 'POST', body: '{}' });
    assert.equal(res.headers.get('content-type'), 'application/x-ndjson');
    assert.equal(await res.text(), '{"ok":true}\n');
    answer.close();
    await assert.rejects(fetch(`${answer.url}/api/chat`, { method: 'POST', body: '{}' }));
  });

  it('runs the HTTP client once for each provider that talks HTTP', () => {
    assert.equal(httpClientLoadedBy('anthropic'), true, 'anthropic');
    assert.equal(httpClientLoadedBy('ollama'), true, 'ollama');
    assert.equal(httpClientLoadedBy('echo'), false, 'echo talks to nobody');
  });

  it('warms a provider once a process: the session that takes a warm spare asks again for nothing', () => {
    assert.equal(preloadDriver('ollama'), preloadDriver('ollama'));
  });
});
