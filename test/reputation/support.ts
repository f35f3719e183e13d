// Shared by the reputation suites: a real server that also loads the fx-caller fixture (internal calls,
// agent MCP tokens) and the fx-emitter fixture (bus events as the extensions that own them publish them).
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { repoRoot } from '../helpers/paths.js';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { FIXTURES } from '../agents/support.js';

const EMITTER = join(repoRoot, 'test/fixtures/extensions/_reputation');

export const startReputationServer = (env: Record<string, string> = {}): Promise<TestServer> => startTestServer({ env: { ROOST_EXTENSION_DIRS: `${FIXTURES},${EMITTER}`, ...env } });

/** Publishes `topic` on the server's bus for the tenant of `key`. */
export async function emit(server: TestServer, key: string, topic: string, payload: unknown): Promise<void> {
  const res = await server.api('POST', '/api/fx-emitter/emit', { key, body: { topic, payload } });
  assert.equal(res.status, 202, res.text);
}

/** Records an event by hand and returns it. */
export async function record(server: TestServer, key: string, body: Record<string, unknown>): Promise<any> {
  const res = await server.api('POST', '/api/reputation/events', { key, body });
  assert.equal(res.status, 201, res.text);
  return res.body;
}

export const daysAgo = (days: number): string => new Date(Date.now() - days * 86_400_000).toISOString();
