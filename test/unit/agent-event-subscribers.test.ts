// Who an agent's events reach, from the bundled manifests ([server.subscribe_when] checked by the kernel
// before it hands an event over): a create reaches credits (the wallet) and activity (the feed); the
// balance credits announces after it reaches no extension (only the WebSocket hub), so it wakes none.
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { passes } from '../../kernel/host/event-filter.js';
import type { Manifest } from '../../kernel/host/manifest.js';
import { readManifestDir } from '../../kernel/host/manifest-dirs.js';

const agent = { id: 'a1', name: 'n', wallet: `rw_${'1'.repeat(40)}` };
const EVENTS: Record<string, unknown> = {
  created: { type: 'agent_updated', agentId: 'a1', action: 'created', agent },
  updated: { type: 'agent_updated', agentId: 'a1', action: 'updated', agent },
  deleted: { type: 'agent_updated', agentId: 'a1', action: 'deleted', agent },
  message: { type: 'agent_message', agentId: 'a1', message: {} },
  balance: { type: 'agent_balance', agentId: 'a1', wallet: agent.wallet, balance: 1 },
};

describe('agent events and their subscribers', () => {
  it('reach only the extensions with work to do for them', async () => {
    const manifests = (await readManifestDir(join(process.cwd(), 'extensions'))).map(({ manifest }) => manifest).filter((m): m is Manifest => !(m instanceof Error));
    const reached: Record<string, string[]> = {};
    for (const [event, payload] of Object.entries(EVENTS)) {
      reached[event] = manifests
        .filter((m) => m.server?.subscribe.includes('agent.*') && passes(m.server.subscribeWhen['agent.*'], payload))
        .map((m) => m.name).sort();
    }
    assert.deepEqual(reached, {
      created: ['activity', 'credits'],
      updated: ['activity', 'credits'],
      deleted: ['activity', 'credits', 'memory'],
      message: ['activity'],
      balance: [],
    });
  });
});
