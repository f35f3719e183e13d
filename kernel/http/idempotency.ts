// The Idempotency-Key header (IETF draft "The Idempotency-Key HTTP Header Field"): a request that
// changes something, sent with a key, is answered once per (tenant, key) for ROOST_IDEMPOTENCY_TTL_SECONDS.
// - The first request runs; its answer is kept (status, the headers that describe the result, body).
// - A retry with the same key, method, path and body gets that answer again, with Idempotent-Replayed: true.
// - The same key with another request: 422 IDEMPOTENCY_KEY_MISMATCH. While the first still runs: 409
//   IDEMPOTENCY_KEY_IN_USE with Retry-After.
// - An answer of 5xx or 429 is not kept (nothing is known to have happened: the retry runs), nor one
//   marked Cache-Control: no-store (it carries a secret, such as a new API key), nor a stream.
// Callers without a tenant (public routes, anonymously) are served as if they sent no key.
import { createHash } from 'node:crypto';
import type { Readable } from 'node:stream';
import type Koa from 'koa';
import { RoostError, toRoostError } from '../../protocol/errors.js';
import type { Kernel } from '../kernel.js';
import { isPostgres } from '../storage/provision.js';
import type { State } from './app.js';
import { IdempotencyStore, type StoredResponse } from './idempotency-store.js';
import { hasBody, readRawBody } from './raw-body.js';
import { isMutating } from './methods.js';

/** What this module uses of the kernel. */
export type IdempotencyDeps = Pick<Kernel, 'config' | 'db' | 'log' | 'registry'>;

/** What of an answer is kept and replayed besides its status and body: what describes the result. */
const KEPT_HEADERS = ['content-type', 'location', 'content-location', 'etag', 'last-modified', 'link'];
/** A key is 1–255 visible ASCII characters, as a structured-field string ("…") or bare. */
const KEY = /^[\x21-\x7e][\x20-\x7e]{0,254}$/;
/** How long a claim outlives its request's own deadline before another instance may take it over. */
const LEASE_MARGIN_MS = 5_000;
/** Kernel routes answer well within this. */
const KERNEL_ROUTE_MS = 60_000;

export function idempotentRequests(kernel: IdempotencyDeps): Koa.Middleware<State> {
  const store = new IdempotencyStore(kernel.db, kernel.config.idempotencyTtlSeconds * 1000, !isPostgres(kernel.config));
  return async (ctx, next) => {
    const header = ctx.get('idempotency-key');
    const tenantId = ctx.state.identity?.tenantId;
    if (header === '' || !isMutating(ctx.method) || !tenantId) return next();
    const key = parseKey(header);
    // Read here, kept for the route (raw-body.ts): a kernel route's JSON body and an extension's attachment.
    const body = hasBody(ctx.req) ? await readRawBody(ctx.req, kernel.config.bodyLimitBytes) : Buffer.alloc(0);
    const fingerprint = createHash('sha256').update(`${ctx.method} ${ctx.url}\n`).update(body).digest('hex');
    const claim = await store.claim(tenantId, key, fingerprint, leaseMs(kernel, ctx.state));
    if (claim.kind === 'mismatch') {
      throw new RoostError('IDEMPOTENCY_KEY_MISMATCH', 'this Idempotency-Key was used for another request (method, path or body): use a new key for a new request');
    }
    if (claim.kind === 'busy') {
      ctx.set('Retry-After', '1');
      throw new RoostError('IDEMPOTENCY_KEY_IN_USE', 'a request with this Idempotency-Key is still being served: retry once it is answered');
    }
    if (claim.kind === 'replay') return replay(ctx, claim.response);
    const { owner } = claim;
    let kept: StoredResponse | undefined;
    try {
      await next();
      kept = keepable(ctx);
    } catch (err) {
      const error = toRoostError(err);
      if (storable(error.status)) {
        kept = { status: error.status, headers: { 'content-type': 'application/json; charset=utf-8' }, body: Buffer.from(JSON.stringify(error.toBody())) };
      }
      throw err;
    } finally {
      // The answer goes out whatever happens here; a key that could not be settled frees itself when its lease ends.
      await (kept ? store.keep(tenantId, key, owner, kept) : store.release(tenantId, key, owner)).catch((err: Error) => {
        kernel.log('warn', `idempotency: settling a key of tenant ${tenantId} failed: ${err.message}`);
      });
    }
  };
}

/** The key itself: a structured-field string's content, or the bare value clients such as Stripe's send. */
function parseKey(header: string): string {
  const quoted = /^"([^"\\]*)"$/.exec(header);
  const key = quoted ? quoted[1]! : header;
  if (!KEY.test(key) || (!quoted && header.startsWith('"'))) throw new RoostError('VALIDATION_ERROR', 'Idempotency-Key must be 1 to 255 visible ASCII characters, such as a UUID');
  return key;
}

/** How long a claim may last: the route's own deadline (an extension may first have to start), plus a margin. */
function leaseMs(kernel: IdempotencyDeps, state: State): number {
  const owner = state.route?.owner;
  const timeoutMs = owner ? kernel.registry.get(owner).manifest.server?.timeoutMs ?? KERNEL_ROUTE_MS : KERNEL_ROUTE_MS;
  return timeoutMs + kernel.config.extensionWaitMs + LEASE_MARGIN_MS;
}

function storable(status: number): boolean {
  return status < 500 && status !== 429;
}

/** The answer as it will be sent, when it is one to keep. */
function keepable(ctx: Koa.Context): StoredResponse | undefined {
  if (!storable(ctx.status) || /\bno-store\b/i.test(ctx.response.get('cache-control'))) return undefined;
  const body = ctx.body as unknown;
  let bytes: Buffer;
  if (body === null || body === undefined) bytes = Buffer.alloc(0);
  else if (Buffer.isBuffer(body)) bytes = body;
  else if (typeof body === 'string') bytes = Buffer.from(body);
  else if (typeof (body as Readable).pipe === 'function') return undefined;
  else bytes = Buffer.from(JSON.stringify(body));
  const headers: Record<string, string> = {};
  for (const name of KEPT_HEADERS) {
    const value = ctx.response.get(name);
    if (value !== '') headers[name] = value;
  }
  return { status: ctx.status, headers, body: bytes };
}

function replay(ctx: Koa.Context, response: StoredResponse): void {
  ctx.body = response.body.length > 0 ? response.body : null;
  ctx.status = response.status;
  for (const [name, value] of Object.entries(response.headers)) ctx.set(name, value);
  ctx.set('Idempotent-Replayed', 'true');
}
