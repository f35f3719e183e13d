// The seed's web UI has its own port, 4200: the dashboard declares it as the default of ROOST_UI_PORT, so
// a server started with nothing set answers there too; 0 turns it off; a default port that something
// else holds is let go with a warning, never a failed start (an explicitly set one does fail the start).
import assert from 'node:assert/strict';
import { createServer } from 'node:net';
import { describe, it } from 'node:test';
import { extraPorts } from '../../kernel/http/extra-ports.js';
import { startTestServer } from '../helpers/server.js';
import { waitFor } from '../helpers/wait.js';

const DEFAULT_UI_PORT = 4200;
const dashboard = { server: { listen: [{ variable: 'ROOST_UI_PORT', defaultPort: DEFAULT_UI_PORT }] } } as never;

/** Whether something on this machine already answers on the port (another program, a developer's server). */
async function held(port: number): Promise<boolean> {
  const probe = createServer();
  return new Promise((resolve) => {
    probe.once('error', () => resolve(true));
    probe.listen(port, '127.0.0.1', () => probe.close(() => resolve(false)));
  });
}

describe('the dashboard\'s default port, 4200', () => {
  it('is taken when ROOST_UI_PORT is unset, left alone at 0, replaced by a set port, and a bad value fails', () => {
    assert.deepEqual(extraPorts([dashboard], {}), [{ variable: 'ROOST_UI_PORT', port: 4200, byDefault: true }]);
    assert.deepEqual(extraPorts([dashboard], { ROOST_UI_PORT: '0' }), []);
    assert.deepEqual(extraPorts([dashboard], { ROOST_UI_PORT: '8088' }), [{ variable: 'ROOST_UI_PORT', port: 8088, byDefault: false }]);
    assert.throws(() => extraPorts([dashboard], { ROOST_UI_PORT: 'lots' }), /ROOST_UI_PORT must be a port, 1–65535 \(0: none\)/);
  });

  it('serves the dashboard on 4200 with nothing set, or starts anyway and says so when 4200 is held', async () => {
    const before = await held(DEFAULT_UI_PORT);
    const first = await startTestServer({ env: { ROOST_UI_PORT: '' } });
    try {
      if (!before) {
        const page = await fetch(`http://127.0.0.1:${DEFAULT_UI_PORT}/ui/`);
        assert.equal(page.status, 200);
        assert.match(page.headers.get('content-type') ?? '', /^text\/html/);
      }
    } finally {
      await first.cleanup();
    }
    // Now 4200 is held (by this test's own listener if it was free): a server still starts, and warns.
    const holder = before ? null : createServer();
    if (holder) await new Promise<void>((resolve) => holder.listen(DEFAULT_UI_PORT, '127.0.0.1', resolve));
    const second = await startTestServer({ env: { ROOST_UI_PORT: '' } });
    try {
      assert.equal((await second.api('GET', '/api/health')).status, 200);
      await waitFor('the warning', () => /port 4200 \(the default of ROOST_UI_PORT\) is in use/.test(second.log()) || undefined);
    } finally {
      await second.cleanup();
      await new Promise((resolve) => (holder ? holder.close(resolve) : resolve(undefined)));
    }
  });
});
