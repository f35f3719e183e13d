// The sessions REST API and the escalation queue.
import { join } from 'node:path';
import { validationError } from '../../protocol/errors.js';
import { validate } from '../../protocol/validate.js';
import type { ExtensionContext, RouteHandler } from '../../sdk/extension.js';
import { created, noContent, ok, page, queryString } from '../../sdk/http.js';
import { listEvents, listMessages, streamMessage } from './event-log.js';
import type { CreateInput } from './manager.js';
import type { Sessions } from './state.js';
import { STATUSES, toView } from './store.js';

const schema = (ctx: ExtensionContext, name: string) => join(ctx.init.plugin.dir, 'schemas', name);
const MAX_EVENTS_PAGE = 1_000;
/** A long poll of GET …/events waits at most this long: well inside the extension request timeout. */
const MAX_EVENTS_WAIT_MS = 15_000;

export const sessionRoutes: Record<string, RouteHandler<Sessions>> = {
  async 'GET /api/sessions'(req, _ctx, { manager }) {
    const status = queryString(req.query, 'status');
    if (status !== undefined && !(STATUSES as readonly string[]).includes(status)) throw validationError(`query.status must be one of ${STATUSES.join(', ')}`);
    const { rows, total, hasMore } = await manager.store.list(req.auth.tenantId, {
      ...page(req.query),
      projectId: queryString(req.query, 'projectId'),
      agentId: queryString(req.query, 'agentId'),
      status,
    });
    return ok({ sessions: rows.map((r) => manager.live(req.auth.tenantId, r.id)?.view() ?? toView(r, null)), ...(total === undefined ? {} : { total }), hasMore });
  },

  async 'POST /api/sessions'(req, ctx, { manager }) {
    const input = validate<CreateInput>(schema(ctx, 'session-create.json'), req.body);
    return created(await manager.create(req.auth.tenantId, { requestId: req.id }, input));
  },

  async 'GET /api/sessions/:id'(req, _ctx, { manager }) {
    return ok(await manager.view(req.auth.tenantId, req.params.id!));
  },

  async 'PUT /api/sessions/:id'(req, ctx, { manager }) {
    const patch = validate<{ name?: string; timeoutMinutes?: number }>(schema(ctx, 'session-update.json'), req.body);
    return ok(await manager.rename(req.auth.tenantId, req.params.id!, patch));
  },

  async 'DELETE /api/sessions/:id'(req, _ctx, { manager }) {
    await manager.remove(req.auth.tenantId, req.params.id!);
    return noContent();
  },

  async 'GET /api/sessions/:id/messages'(req, ctx, { manager }) {
    const row = await manager.mustGet(req.auth.tenantId, req.params.id!);
    await manager.live(req.auth.tenantId, row.id)?.log.flush();
    return ok({ sessionId: row.id, ...(await listMessages(ctx.sql, row.id, page(req.query))) });
  },

  async 'POST /api/sessions/:id/messages'(req, ctx, { manager }) {
    const { content, reservationId } = validate<{ content: string; reservationId?: string }>(schema(ctx, 'message-post.json'), req.body);
    const seq = await manager.send(req.auth.tenantId, req.params.id!, content, reservationId);
    return { status: 202, body: { sessionId: req.params.id, seq, accepted: true } };
  },

  async 'GET /api/sessions/:id/events'(req, ctx, { manager }) {
    const row = await manager.mustGet(req.auth.tenantId, req.params.id!);
    const after = intQuery(req.query, 'after', 0, 0, Number.MAX_SAFE_INTEGER);
    const limit = intQuery(req.query, 'limit', 500, 1, MAX_EVENTS_PAGE);
    // A long poll: with nothing past `after` yet, a session this process runs answers when its next
    // event comes — of one of the `until` types, when given — or after waitMs. One run elsewhere
    // answers at once; the reader polls again.
    const waitMs = intQuery(req.query, 'waitMs', 0, 0, MAX_EVENTS_WAIT_MS);
    const log = manager.live(req.auth.tenantId, row.id)?.log;
    await log?.waitBeyond(after, waitMs, eventTypes(req.query, 'until'));
    await log?.flush();
    return ok({ sessionId: row.id, events: await listEvents(ctx.sql, row.id, after, limit) });
  },

  /** The stream's replay ([[server.streams]] replay): what a subscriber missed, as it would have seen it. */
  async 'GET /api/internal/sessions/:id/stream'(req, ctx, { manager }) {
    const row = await manager.mustGet(req.auth.tenantId, req.params.id!);
    const after = intQuery(req.query, 'after', 0, 0, Number.MAX_SAFE_INTEGER);
    const limit = intQuery(req.query, 'limit', 500, 1, MAX_EVENTS_PAGE);
    await manager.live(req.auth.tenantId, row.id)?.log.flush();
    return ok({ messages: (await listEvents(ctx.sql, row.id, after, limit)).map((event) => streamMessage(row.id, event)) });
  },

  async 'POST /api/sessions/:id/stop'(req, _ctx, { manager }) {
    return ok(await manager.stop(req.auth.tenantId, req.params.id!));
  },

  async 'POST /api/sessions/:id/resume'(req, _ctx, { manager }) {
    return ok(await manager.resume(req.auth.tenantId, req.params.id!));
  },

  async 'GET /api/escalation-queue'(req, _ctx, { manager }) {
    const sessionId = queryString(req.query, 'sessionId');
    return ok(await manager.escalations.pending(req.auth.tenantId, { ...page(req.query), sessionId }));
  },

  async 'POST /api/escalation-queue/:id/resolve'(req, ctx, { manager }) {
    const { behavior } = validate<{ behavior: 'allow' | 'deny' }>(schema(ctx, 'escalation-resolve.json'), req.body);
    return ok(await manager.broker.resolveEscalation(req.auth.tenantId, req.params.id!, behavior, req.auth.actor));
  },
};

/** A comma-separated list of event types (at most 20), or null when the query does not name any. */
function eventTypes(query: Record<string, string | string[]>, name: string): ReadonlySet<string> | null {
  const raw = queryString(query, name);
  if (raw === undefined || raw === '') return null;
  const types = raw.split(',');
  if (types.length > 20 || !types.every((t) => /^[a-z_]{1,40}$/.test(t))) throw validationError(`query.${name} must be a comma-separated list of at most 20 event types (such as turn_end,status)`);
  return new Set(types);
}

function intQuery(query: Record<string, string | string[]>, name: string, fallback: number, min: number, max: number): number {
  const raw = queryString(query, name);
  if (raw === undefined || raw === '') return fallback;
  const n = Number(raw);
  if (!Number.isInteger(n) || n < min || n > max) throw validationError(`query.${name} must be an integer from ${min} to ${max}`);
  return n;
}
