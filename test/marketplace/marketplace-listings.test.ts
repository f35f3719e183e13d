import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { TestServer } from '../helpers/server.js';
import { createAgent, registerTenant, startServer, type Tenant } from '../agents/support.js';

describe('marketplace: listings, search ranking and reviews', () => {
  let server: TestServer;
  let a: Tenant;
  let b: Tenant;
  let c: Tenant;
  let sellerA: any;
  before(async () => {
    server = await startServer();
    [a, b, c] = await Promise.all([registerTenant(server, 'market-a'), registerTenant(server, 'market-b'), registerTenant(server, 'market-c')]);
    sellerA = await createAgent(server, a.operator, { name: 'seller-a' });
  });
  after(() => server.cleanup());

  const list = async (key: string, body: Record<string, unknown>) => {
    const res = await server.api('POST', '/api/marketplace/listings', { key, body });
    assert.equal(res.status, 201, res.text);
    return res.body;
  };

  it('creates, reads, updates and deletes a listing; other tenants see it only while public', async () => {
    const listing = await list(a.operator, { kind: 'agent', name: 'Release notes writer', description: 'Writes release notes from merged pull requests', tags: ['docs'], priceMicroUnits: 0 });
    assert.equal(listing.visibility, 'public');
    assert.equal(listing.mine, true);
    assert.deepEqual(listing.rating, { average: null, count: 0 });

    const seen = await server.api('GET', `/api/marketplace/listings/${listing.id}`, { key: b.viewer });
    assert.equal(seen.status, 200);
    assert.equal(seen.body.mine, false);

    const foreignPut = await server.api('PUT', `/api/marketplace/listings/${listing.id}`, { key: b.owner, body: { name: 'stolen' } });
    assert.equal(foreignPut.status, 403);
    const foreignDelete = await server.api('DELETE', `/api/marketplace/listings/${listing.id}`, { key: b.owner });
    assert.equal(foreignDelete.status, 403);

    const hidden = await server.api('PUT', `/api/marketplace/listings/${listing.id}`, { key: a.operator, body: { visibility: 'private', name: 'Changelog writer' } });
    assert.equal(hidden.status, 200, hidden.text);
    assert.equal(hidden.body.name, 'Changelog writer');
    for (const [method, body] of [['GET', undefined], ['PUT', { name: 'x' }], ['DELETE', undefined]] as const) {
      const res = await server.api(method, `/api/marketplace/listings/${listing.id}`, { key: b.owner, ...(body ? { body } : {}) });
      assert.equal(res.status, 404, `${method} of another tenant's private listing`);
      assert.equal(res.body.code, 'NOT_FOUND');
    }
    const mine = await server.api('GET', '/api/marketplace/listings', { key: a.viewer });
    assert.deepEqual(mine.body.listings.map((l: any) => l.id), [listing.id]);
    assert.deepEqual((await server.api('GET', '/api/marketplace/listings', { key: b.viewer })).body.listings, []);

    assert.equal((await server.api('DELETE', `/api/marketplace/listings/${listing.id}`, { key: a.operator })).status, 204);
    assert.equal((await server.api('GET', `/api/marketplace/listings/${listing.id}`, { key: a.viewer })).status, 404);
  });

  it('refuses bad listings with a clear error and stores nothing', async () => {
    const cases: Array<[unknown, RegExp]> = [
      [{ kind: 'agent' }, /name/],
      [{ kind: 'robot', name: 'x' }, /kind/],
      [{ kind: 'agent', name: 'x', priceMicroUnits: -1 }, /priceMicroUnits/],
      [{ kind: 'agent', name: 'x', priceMicroUnits: 1.5 }, /priceMicroUnits/],
      [{ kind: 'agent', name: 'x', priceMicroUnits: 10 }, /agentId is required for a paid listing/],
      [{ kind: 'agent', name: 'x', agentId: 'no-such-agent' }, /agent no-such-agent not found/],
      [{ kind: 'agent', name: 'x', tags: Array.from({ length: 30 }, (_, i) => `t${i}`) }, /tags/],
      [{ kind: 'agent', name: 'x', extra: 1 }, /extra|additional/],
      [{ kind: 'agent', name: 'x'.repeat(201) }, /name/],
    ];
    for (const [body, message] of cases) {
      const res = await server.api('POST', '/api/marketplace/listings', { key: c.operator, body });
      assert.equal(res.status, 400, JSON.stringify(body));
      assert.equal(res.body.code, 'VALIDATION_ERROR');
      assert.match(res.body.error, message);
    }
    const foreignAgent = await server.api('POST', '/api/marketplace/listings', { key: c.operator, body: { kind: 'agent', name: 'x', agentId: sellerA.id, priceMicroUnits: 5 } });
    assert.equal(foreignAgent.status, 400, 'another tenant\'s agent is unknown');
    const malformed = await server.api('POST', '/api/marketplace/listings', { key: c.operator, raw: '{"kind": "agent", ' });
    assert.equal(malformed.status, 400);
    const nested = await server.api('POST', '/api/marketplace/listings', { key: c.operator, raw: `{"kind":"agent","name":"x","tags":${'['.repeat(5000)}${']'.repeat(5000)}}` });
    assert.equal(nested.status, 400);
    const huge = await server.api('POST', '/api/marketplace/listings', { key: c.operator, body: { kind: 'agent', name: 'x', description: 'y'.repeat(2 * 1024 * 1024) } });
    assert.equal(huge.status, 413);
    const viewer = await server.api('POST', '/api/marketplace/listings', { key: c.viewer, body: { kind: 'agent', name: 'x' } });
    assert.equal(viewer.status, 403);
    const anonymous = await fetch(`${server.url}/api/marketplace/listings`, { method: 'POST', headers: { 'content-type': 'application/json', origin: 'https://evil.example' }, body: '{"kind":"agent","name":"x"}' });
    assert.equal(anonymous.status, 403, 'a foreign origin is refused');
    assert.deepEqual((await server.api('GET', '/api/marketplace/listings', { key: c.viewer })).body.listings, []);
  });

  it('ranks search results by relevance, then by reputation from reviews', async () => {
    const strong = await list(a.operator, { kind: 'skill_bundle', name: 'Kubernetes deployer', description: 'Deploys services to Kubernetes clusters', tags: ['kubernetes', 'deploy'] });
    const weak = await list(a.operator, { kind: 'skill_bundle', name: 'Shell helper', description: 'Small scripts; can also talk to kubernetes now and then' });
    const twinGood = await list(b.operator, { kind: 'workflow', name: 'Invoice reconciler', description: 'Matches invoices against payments' });
    const twinBad = await list(c.operator, { kind: 'workflow', name: 'Invoice reconciler', description: 'Matches invoices against payments' });
    const secret = await list(c.operator, { kind: 'workflow', name: 'Kubernetes secret rotator', visibility: 'private' });

    const k8s = await server.api('GET', '/api/marketplace/search?q=Kubernetes%20deploying', { key: b.viewer });
    assert.equal(k8s.status, 200, k8s.text);
    assert.deepEqual(k8s.body.results.map((r: any) => r.id), [strong.id, weak.id], 'the name and tag match outranks a passing mention; a private listing of another tenant never shows');
    assert.ok(k8s.body.results[0].relevance > k8s.body.results[1].relevance);
    const own = await server.api('GET', '/api/marketplace/search?q=kubernetes', { key: c.viewer });
    assert.ok(own.body.results.some((r: any) => r.id === secret.id), 'a tenant finds its own private listing');

    const review = async (key: string, id: string, rating: number) => {
      const res = await server.api('POST', `/api/marketplace/listings/${id}/reviews`, { key, body: { rating, comment: `${rating} stars` } });
      assert.equal(res.status, 201, res.text);
      return res.body;
    };
    await review(a.operator, twinGood.id, 5);
    await review(c.operator, twinGood.id, 5);
    await review(a.operator, twinBad.id, 1);
    const invoices = await server.api('GET', '/api/marketplace/search?q=invoice', { key: a.viewer });
    assert.deepEqual(invoices.body.results.map((r: any) => r.id), [twinGood.id, twinBad.id], 'equal relevance: the better reviewed ranks first');
    assert.equal(invoices.body.results[0].relevance, invoices.body.results[1].relevance);
    assert.ok(invoices.body.results[0].reputation > invoices.body.results[1].reputation);

    const filtered = await server.api('GET', '/api/marketplace/search?q=invoice&minRating=4', { key: a.viewer });
    assert.deepEqual(filtered.body.results.map((r: any) => r.id), [twinGood.id]);
    const byKind = await server.api('GET', '/api/marketplace/search?kind=skill_bundle&tag=deploy', { key: a.viewer });
    assert.deepEqual(byKind.body.results.map((r: any) => r.id), [strong.id]);
    for (const query of ['kind=robot', 'minRating=9', 'maxPrice=-1', 'limit=0', `q=${'x'.repeat(501)}`]) {
      const res = await server.api('GET', `/api/marketplace/search?${query}`, { key: a.viewer });
      assert.equal(res.status, 400, query);
    }
    const nothing = await server.api('GET', '/api/marketplace/search?q=%25%27%3B%20drop%20table', { key: a.viewer });
    assert.equal(nothing.status, 200);
    assert.deepEqual(nothing.body.results, []);
  });

  it('keeps one review per tenant and listing; the author or the owner deletes it', async () => {
    const listing = await list(a.operator, { kind: 'agent', name: 'Reviewed agent' });
    const first = await server.api('POST', `/api/marketplace/listings/${listing.id}/reviews`, { key: b.operator, body: { rating: 4 } });
    assert.equal(first.status, 201);
    const second = await server.api('POST', `/api/marketplace/listings/${listing.id}/reviews`, { key: b.owner, body: { rating: 1 } });
    assert.equal(second.status, 409);
    const self = await server.api('POST', `/api/marketplace/listings/${listing.id}/reviews`, { key: a.owner, body: { rating: 5 } });
    assert.equal(self.status, 403);
    for (const rating of [0, 6, 3.5, '5']) {
      const bad = await server.api('POST', `/api/marketplace/listings/${listing.id}/reviews`, { key: c.operator, body: { rating } });
      assert.equal(bad.status, 400, String(rating));
    }
    const byC = await server.api('POST', `/api/marketplace/listings/${listing.id}/reviews`, { key: c.operator, body: { rating: 2 } });
    assert.equal(byC.status, 201);
    let seen = await server.api('GET', `/api/marketplace/listings/${listing.id}`, { key: a.viewer });
    assert.deepEqual(seen.body.rating, { average: 3, count: 2 });

    assert.equal((await server.api('DELETE', `/api/marketplace/reviews/${first.body.id}`, { key: c.owner })).status, 404, 'neither author nor owner');
    assert.equal((await server.api('DELETE', `/api/marketplace/reviews/${first.body.id}`, { key: b.operator })).status, 204, 'the author');
    assert.equal((await server.api('DELETE', `/api/marketplace/reviews/${byC.body.id}`, { key: a.operator })).status, 204, 'the listing owner');
    assert.equal((await server.api('DELETE', `/api/marketplace/reviews/${byC.body.id}`, { key: a.operator })).status, 404);
    seen = await server.api('GET', `/api/marketplace/listings/${listing.id}`, { key: a.viewer });
    assert.deepEqual(seen.body.rating, { average: null, count: 0 });
    const again = await server.api('POST', `/api/marketplace/listings/${listing.id}/reviews`, { key: b.operator, body: { rating: 5 } });
    assert.equal(again.status, 201, 'after deleting, the tenant may review again');
    const reviews = await server.api('GET', `/api/marketplace/listings/${listing.id}/reviews`, { key: a.viewer });
    assert.deepEqual(reviews.body.reviews.map((r: any) => [r.rating, r.mine]), [[5, false]]);
  });
});
