import assert from 'node:assert/strict';
import { createHash, createPublicKey, generateKeyPairSync, sign, verify } from 'node:crypto';
import { createServer as createHttpServer } from 'node:http';
import { createServer, type Server, type Socket } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { instanceMembers, registerTenant, type Tenant } from '../agents/support.js';

/** A port that accepts connections and never answers (a hung server), and a port nobody listens on. */
async function blackHole(): Promise<{ server: Server; port: number; sockets: Set<Socket> }> {
  const sockets = new Set<Socket>();
  const server = createServer((socket) => sockets.add(socket));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { server, port: (server.address() as { port: number }).port, sockets };
}

async function closedPort(): Promise<number> {
  const { server, port } = await blackHole();
  await new Promise((resolve) => server.close(resolve));
  return port;
}

describe('marketplace federation across real servers', () => {
  let a: TestServer;
  let b: TestServer;
  let c: TestServer;
  let owner: Tenant;
  let hole: Awaited<ReturnType<typeof blackHole>>;
  before(async () => {
    // The servers federate over this machine's loopback: only the instance's own tenant may reach it, and
    // only with the instance owner's opt-in (another tenant reaches public addresses only).
    [a, b, c] = await Promise.all([startTestServer({ env: { ROOST_EXT_MARKETPLACE_ALLOW_LOOPBACK: '1' } }), startTestServer(), startTestServer()]);
    owner = await instanceMembers(a);
    hole = await blackHole();
  });
  after(async () => {
    for (const s of hole.sockets) s.destroy();
    hole.server.close();
    await Promise.all([a, b, c].map((s) => s.cleanup()));
  });

  const offer = async (server: TestServer, name: string, visibility = 'public') => {
    const res = await server.api('POST', '/api/marketplace/listings', { body: { kind: 'skill_bundle', name, description: `${name} for federation`, visibility } });
    assert.equal(res.status, 201, res.text);
    return res.body;
  };
  const register = (body: Record<string, unknown>, key = owner.owner) => a.api('POST', '/api/marketplace/federation/instances', { key, body });
  const sync = async () => {
    const res = await a.api('POST', '/api/marketplace/federation/sync', { key: owner.operator });
    assert.equal(res.status, 200, res.text);
    return Object.fromEntries(res.body.instances.map((i: any) => [i.url, i]));
  };

  it('publishes a feed of public listings signed with a key anyone can check', async () => {
    await offer(b, 'Terraform planner');
    await offer(b, 'Private thing', 'private');
    const key = await fetch(`${b.url}/.well-known/roost-marketplace-key`).then((r) => r.json());
    assert.equal(key.algorithm, 'Ed25519');
    const res = await fetch(`${b.url}/api/marketplace/federation/feed`);
    assert.equal(res.status, 200);
    const etag = res.headers.get('etag');
    assert.ok(etag);
    const envelope = await res.json();
    const publicKey = createPublicKey({ key: { kty: 'OKP', crv: 'Ed25519', x: key.publicKey }, format: 'jwk' });
    assert.equal(verify(null, Buffer.from(envelope.payload), publicKey, Buffer.from(envelope.signature, 'base64url')), true);
    const statement = JSON.parse(envelope.payload);
    assert.deepEqual(statement.listings.map((l: any) => l.name), ['Terraform planner'], 'private listings stay home');
    assert.equal(JSON.stringify(statement).includes('tenant'), false, 'no tenant ids leave the server');
    const again = await fetch(`${b.url}/api/marketplace/federation/feed`, { headers: { 'if-none-match': etag! } });
    assert.equal(again.status, 304);
  });

  it('syncs from every instance: a good one, one down, one hung and one with a bad signature', async () => {
    const good = await register({ url: `${b.url}/` });
    assert.equal(good.status, 201, good.text);
    assert.equal(good.body.url, b.url, 'the URL is kept without its trailing slash');
    const bKey = good.body.publicKey;
    await offer(c, 'Forged listing');
    // C is registered with a key that is not C's (a key learnt out of band for that URL): C cannot sign for it.
    assert.equal((await register({ url: c.url, publicKey: bKey })).status, 201);
    const downUrl = `http://127.0.0.1:${await closedPort()}`;
    assert.equal((await register({ url: downUrl, publicKey: bKey })).status, 201);
    const hungUrl = `http://127.0.0.1:${hole.port}`;
    assert.equal((await register({ url: hungUrl, publicKey: bKey, timeoutMs: 500 })).status, 201);

    const first = await sync();
    assert.equal(first[b.url].status, 'ok');
    assert.equal(first[b.url].listings, 1);
    assert.equal(first[c.url].status, 'bad_signature');
    assert.match(first[c.url].error, /not by the issuer's key/);
    assert.equal(first[downUrl].status, 'unreachable');
    assert.equal(first[hungUrl].status, 'timeout');
    const federated = await a.api('GET', '/api/marketplace/federated', { key: owner.viewer });
    assert.deepEqual(federated.body.listings.map((l: any) => [l.name, l.instance]), [['Terraform planner', b.url]], 'nothing of the forged feed is kept');

    const second = await sync();
    assert.equal(second[b.url].status, 'not_modified', 'the ETag spares an unchanged feed');
    assert.equal(second[b.url].listings, 1);
    await offer(b, 'Helm chart linter');
    const third = await sync();
    assert.equal(third[b.url].status, 'ok');
    assert.equal(third[b.url].listings, 2);
    const instances = await a.api('GET', '/api/marketplace/federation/instances', { key: owner.viewer });
    const byUrl = Object.fromEntries(instances.body.instances.map((i: any) => [i.url, i]));
    assert.equal(byUrl[c.url].lastStatus, 'bad_signature');
    assert.equal(byUrl[b.url].listingCount, 2);
    const only = await a.api('GET', `/api/marketplace/federated?instance=${encodeURIComponent(b.url)}`, { key: owner.viewer });
    assert.deepEqual(only.body.listings.map((l: any) => l.name).sort(), ['Helm chart linter', 'Terraform planner']);

    const other = await registerTenant(a, 'not-federating');
    assert.deepEqual((await a.api('GET', '/api/marketplace/federated', { key: other.viewer })).body.listings, [], 'federation is per tenant');
    assert.deepEqual((await a.api('GET', '/api/marketplace/federation/instances', { key: other.viewer })).body.instances, []);

    const removed = await a.api('DELETE', `/api/marketplace/federation/instances/${encodeURIComponent(b.url)}`, { key: owner.owner });
    assert.equal(removed.status, 204, removed.text);
    assert.deepEqual((await a.api('GET', '/api/marketplace/federated', { key: owner.viewer })).body.listings, []);
    assert.equal((await a.api('DELETE', `/api/marketplace/federation/instances/${encodeURIComponent(b.url)}`, { key: owner.owner })).status, 404);
  });

  it('keeps only well-formed listings of a feed, and only their own fields', async () => {
    // Another server (a plain HTTP server here) whose feed is truly signed with its key but holds a
    // listing that is not one, and a good one carrying fields of its own.
    const { publicKey, privateKey } = generateKeyPairSync('ed25519');
    const raw = Buffer.from(String(publicKey.export({ format: 'jwk' }).x), 'base64url');
    const good = { id: 'remote-1', kind: 'workflow', name: 'Release train', description: 'Ships', tags: ['release'], priceMicroUnits: 2000, rating: { average: 4.5, count: 2 }, useCount: 7, updatedAt: '2024-05-01T10:00:00.000Z' };
    const payload = JSON.stringify({ type: 'roost.marketplace.feed', issuedAt: new Date().toISOString(), listings: [
      { ...good, mine: true, tenantId: 'theirs', html: '<script>' },
      { ...good, id: 'remote-2', tags: 'not a list' },
      { id: 'remote-3', kind: 'workflow', name: 'Only a name' },
    ] });
    const envelope = { algorithm: 'Ed25519', keyId: createHash('sha256').update(raw).digest('hex').slice(0, 32), payload, signature: sign(null, Buffer.from(payload), privateKey).toString('base64url') };
    const remote = createHttpServer((_req, res) => res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(envelope)));
    await new Promise<void>((resolve) => remote.listen(0, '127.0.0.1', resolve));
    try {
      const url = `http://127.0.0.1:${(remote.address() as { port: number }).port}`;
      const added = await register({ url, publicKey: raw.toString('base64url') });
      assert.equal(added.status, 201, added.text);
      const synced = await a.api('POST', '/api/marketplace/federation/sync', { key: owner.operator });
      assert.deepEqual(synced.body.instances.filter((i: any) => i.url === url).map((i: any) => [i.status, i.listings]), [['ok', 1]]);
      const federated = await a.api('GET', `/api/marketplace/federated?instance=${encodeURIComponent(url)}`, { key: owner.viewer });
      assert.equal(federated.status, 200, federated.text);
      assert.deepEqual(federated.body.listings, [{ ...good, instance: url, syncedAt: federated.body.listings[0].syncedAt }]);
    } finally {
      remote.close();
    }
  });

  it('refuses bad registrations', async () => {
    assert.equal((await register({ url: b.url }, owner.operator)).status, 403, 'only an owner registers');
    // Another tenant reaches public addresses only: no registering this machine, its network or the metadata service.
    const tenant = await registerTenant(a, 'federating');
    for (const url of [b.url, 'http://10.0.0.7', 'http://169.254.169.254']) {
      const res = await register({ url, publicKey: 'A'.repeat(43) }, tenant.owner);
      assert.equal(res.status, 403, `${url}: ${res.text}`);
      assert.match(res.body.error, /only public addresses may be reached from here/);
    }
    assert.equal((await register({ url: c.url })).status, 409, 'already registered');
    for (const url of ['not a url', 'ftp://example.com', 'http://user:pw@example.com']) {
      const res = await register({ url });
      assert.equal(res.status, 400, url);
    }
    assert.equal((await register({ url: b.url, publicKey: 'A'.repeat(43) + '!' })).status, 400);
    const down = await register({ url: `http://127.0.0.1:${await closedPort()}`, timeoutMs: 2000 });
    assert.equal(down.status, 502, 'without a key the server must answer for its key now');
    assert.equal((await a.api('DELETE', `/api/marketplace/federation/instances/${encodeURIComponent(c.url)}`, { key: owner.operator })).status, 403);
  });
});
