// Federation: the signed feed and key other servers read (public), and a tenant's registered instances.
import { RoostError, validationError } from '../../protocol/errors.js';
import { validate } from '../../protocol/validate.js';
import type { RouteHandler } from '../../sdk/extension.js';
import { created, noContent, ok, page, queryString } from '../../sdk/http.js';
import { checkReach, parseHttpUrl, request, type Reach } from '../../sdk/outbound.js';
import { publicKeyFrom } from '../../sdk/signing.js';
import { schema } from './common.js';
import { MARKETPLACE_ROUTES } from './contract.js';
import { feed, signingKey } from './feed.js';
import { InstanceStore } from './instances.js';
import { federationReach, syncAll } from './sync.js';

export const KEY_PATH = '/.well-known/roost-marketplace-key';
const DEFAULT_TIMEOUT_MS = 5_000;

/** An instance's identity: its origin and path, without a trailing slash, query or fragment. */
function instanceUrl(raw: string): string {
  const url = parseHttpUrl(raw, 'url');
  return `${url.origin}${url.pathname.replace(/\/+$/, '')}`;
}

async function fetchKey(url: string, timeoutMs: number, reach: Reach): Promise<string> {
  const reply = await request({ method: 'GET', url: new URL(`${url}${KEY_PATH}`), timeoutMs, maxBytes: 16 * 1024, reach });
  const key = reply.status === 200 ? publicKeyFrom(reply.body) : undefined;
  if (!key) throw new RoostError('UPSTREAM_ERROR', `${url}${KEY_PATH} answered ${reply.status} without an Ed25519 key: is it a Roost server with the marketplace?`, { status: 502 });
  return (reply.body as { publicKey: string }).publicKey;
}

export const federationRoutes: Record<string, RouteHandler> = {
  async 'GET /.well-known/roost-marketplace-key'(_req, ctx) {
    return ok((await signingKey(ctx)).published);
  },

  async 'GET /api/marketplace/federation/feed'(req, ctx) {
    const { etag, listings } = await feed(ctx);
    if (req.headers['if-none-match'] === etag) return { status: 304, headers: { etag } };
    const envelope = (await signingKey(ctx)).sign({ type: 'roost.marketplace.feed', issuedAt: new Date().toISOString(), listings });
    return { status: 200, headers: { etag }, body: envelope };
  },

  async 'GET /api/marketplace/federation/instances'(req, ctx) {
    return ok({ instances: await new InstanceStore(ctx.db).list(req.auth.tenantId) });
  },

  async 'POST /api/marketplace/federation/instances'(req, ctx) {
    if (req.auth.role !== 'owner') throw new RoostError('FORBIDDEN', 'only an owner registers federated instances');
    const body = validate<{ url: string; publicKey?: string; timeoutMs?: number }>(schema(ctx, 'instance-create.json'), req.body);
    const url = instanceUrl(body.url);
    const reach = federationReach(ctx, req.auth.tenantId, url);
    await checkReach(new URL(url), reach);
    const timeoutMs = body.timeoutMs ?? DEFAULT_TIMEOUT_MS;
    const publicKey = body.publicKey ?? (await fetchKey(url, timeoutMs, reach));
    const key = publicKeyFrom({ algorithm: 'Ed25519', publicKey });
    if (!key) throw validationError('body.publicKey must be an Ed25519 public key: 32 bytes in base64url');
    return created(await new InstanceStore(ctx.db).add(req.auth.tenantId, { url, publicKey, keyId: key.keyId, timeoutMs }));
  },

  async 'DELETE /api/marketplace/federation/instances/:url'(req, ctx) {
    if (req.auth.role !== 'owner') throw new RoostError('FORBIDDEN', 'only an owner removes federated instances');
    await new InstanceStore(ctx.db).remove(req.auth.tenantId, instanceUrl(req.params.url!));
    return noContent();
  },

  async 'POST /api/marketplace/federation/sync'(req, ctx) {
    return ok({ instances: await syncAll(ctx, req.auth.tenantId) });
  },

  async [MARKETPLACE_ROUTES.federated](req, ctx) {
    const { limit, offset } = page(req.query);
    const instance = queryString(req.query, 'instance');
    return ok({ listings: await new InstanceStore(ctx.db).federated(req.auth.tenantId, { limit, offset }, instance === undefined ? undefined : instanceUrl(instance)) });
  },
};
