// The reputation REST API: scores, events, identities, attestations and the public attestation key.
import { join } from 'node:path';
import { notFound, validationError } from '../../protocol/errors.js';
import { validate } from '../../protocol/validate.js';
import type { ExtensionContext, RouteHandler, RouteRequest } from '../../sdk/extension.js';
import { created, ok, page } from '../../sdk/http.js';
import { agentById } from '../agents/contract.js';
import { attest, latest, signingKey } from './attestations.js';
import { EventStore } from './events-store.js';
import { IdentityStore, type Tier } from './identities.js';
import { allScores, computeScore, currentScore } from './scores.js';
import { EVENT_KINDS, type EventKind } from './scoring.js';

const schema = (ctx: ExtensionContext, name: string) => join(ctx.init.plugin.dir, 'schemas', name);
const agent = (ctx: ExtensionContext, req: RouteRequest) => agentById(ctx.host, { requestId: req.id }, req.params.agentId!);
const DEFAULT_TTL_HOURS = 168;
/** How far ahead of this server's clock an occurredAt may be (another machine's clock may run ahead). */
const CLOCK_SKEW_MS = 60_000;

interface EventBody {
  agentId: string;
  kind: EventKind;
  rating?: number;
  subject?: string;
  occurredAt?: string;
  detail?: Record<string, unknown>;
}

export const routes: Record<string, RouteHandler> = {
  async 'GET /api/reputation/scores'(req, ctx) {
    return ok({ scores: await allScores(ctx, req.auth.tenantId, false) });
  },

  async 'POST /api/reputation/scores'(req, ctx) {
    return ok({ scores: await allScores(ctx, req.auth.tenantId, true) });
  },

  async 'GET /api/reputation/scores/:agentId'(req, ctx) {
    const { id } = await agent(ctx, req);
    return ok(await currentScore(ctx, req.auth.tenantId, id));
  },

  async 'POST /api/reputation/scores/:agentId'(req, ctx) {
    const { id } = await agent(ctx, req);
    return ok(await computeScore(ctx, req.auth.tenantId, id));
  },

  async 'POST /api/reputation/events'(req, ctx) {
    const body = validate<EventBody>(schema(ctx, 'event-create.json'), req.body);
    if ((body.kind === 'review') !== (body.rating !== undefined)) throw validationError('body.rating is required for kind review, and only for it');
    if (body.occurredAt && Date.parse(body.occurredAt) > Date.now() + CLOCK_SKEW_MS) throw validationError('body.occurredAt must not be in the future');
    const { id } = await agentById(ctx.host, { requestId: req.id }, body.agentId);
    const impact = body.kind === 'review' ? body.rating! - 3 : EVENT_KINDS[body.kind];
    const event = await new EventStore(ctx.db, ctx.sql).record(req.auth.tenantId, {
      agentId: id, kind: body.kind, impact, source: 'api', subject: body.subject ? `api:${body.subject}` : null,
      detail: { ...body.detail, ...(body.rating !== undefined ? { rating: body.rating } : {}), recordedBy: req.auth.actor },
      ...(body.occurredAt ? { occurredAt: new Date(body.occurredAt).toISOString() } : {}),
    });
    return created(event);
  },

  async 'GET /api/reputation/events/:agentId'(req, ctx) {
    const { id } = await agent(ctx, req);
    const { limit, offset } = page(req.query);
    return ok({ events: await new EventStore(ctx.db, ctx.sql).list(req.auth.tenantId, id, { limit, offset }) });
  },

  async 'GET /api/reputation/identities'(req, ctx) {
    return ok({ identities: await new IdentityStore(ctx.db).list(req.auth.tenantId) });
  },

  async 'GET /api/reputation/identity/:agentId'(req, ctx) {
    const { id } = await agent(ctx, req);
    return ok(await new IdentityStore(ctx.db).get(req.auth.tenantId, id));
  },

  async 'PUT /api/reputation/identity/:agentId'(req, ctx) {
    const body = validate<{ tier: Tier; evidence?: string }>(schema(ctx, 'identity-put.json'), req.body);
    const { id } = await agent(ctx, req);
    const identity = await new IdentityStore(ctx.db).set(req.auth.tenantId, id, body, { role: req.auth.role, actor: req.auth.actor });
    ctx.host.audit('reputation.identity_tier', `agent:${id}`, { tier: identity.tier });
    return ok(identity);
  },

  async 'GET /api/reputation/attestation/:agentId'(req, ctx) {
    const { id } = await agent(ctx, req);
    const found = await latest(ctx, req.auth.tenantId, id);
    if (!found) throw notFound(`attestation of agent ${id}`);
    return ok(found);
  },

  async 'POST /api/reputation/attestation/:agentId'(req, ctx) {
    const body = validate<{ ttlHours?: number }>(schema(ctx, 'attestation-create.json'), req.body ?? {});
    return created(await attest(ctx, req.auth.tenantId, await agent(ctx, req), body.ttlHours ?? DEFAULT_TTL_HOURS));
  },

  async 'GET /.well-known/roost-attestation-key'(_req, ctx) {
    return ok((await signingKey(ctx)).published);
  },
};
