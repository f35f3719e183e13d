// The base of the providers' contracts: a route named as its manifest declares it becomes a call.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { routePath } from '../../sdk/route-call.js';

test('a route becomes its method and path: params encoded, query kept when set', () => {
  assert.deepEqual(routePath('POST /api/credits/reservations/:id/claim', { id: 'a/b c' }), { method: 'POST', path: '/api/credits/reservations/a%2Fb%20c/claim' });
  assert.deepEqual(
    routePath('PUT /api/internal/memory/agents/:id/memories/:key/txid', { id: 'ag', key: 'k?' }),
    { method: 'PUT', path: '/api/internal/memory/agents/ag/memories/k%3F/txid' },
  );
  assert.deepEqual(routePath('GET /api/credits/usage', {}, { from: '2026-01-01T00:00:00.000Z', to: undefined, limit: 2, search: null }), {
    method: 'GET',
    path: '/api/credits/usage?from=2026-01-01T00%3A00%3A00.000Z&limit=2',
  });
  assert.throws(() => routePath('GET /api/projects/:id'), /no value for :id/);
});
