// Health (liveness, readiness, /api/health: health.ts), operational mode, settings and backups.
import type Router from '@koa/router';
import { RoostError } from '../../../protocol/errors.js';
import { validate } from '../../../protocol/validate.js';
import { requireInstanceOwner, requireRole } from '../../auth/identity.js';
import { DEFAULT_TENANT } from '../../auth/keys.js';
import { OPERATIONAL_MODE_KEY, OPERATIONAL_MODES, type Kernel, type OperationalMode } from '../../kernel.js';
import { backupAll } from '../../storage/backup.js';
import { runSelftest, selfUrl, type SelftestScope } from '../../selftest/run.js';
import type { State } from '../app.js';
import type { HealthRoutes } from './health.js';

/** What this module uses of the kernel. */
export type SystemRouteDeps = Pick<Kernel, 'audit' | 'bus' | 'config' | 'db' | 'keys' | 'registry' | 'settings' | 'ws'>;

export function registerSystemRoutes(router: Router<State>, k: SystemRouteDeps, health: HealthRoutes): void {
  // Public: load balancers and orchestrators ask them (the fast front, http/fast-front.ts, answers most of
  // their requests before they get here).
  for (const [path, answer] of health) {
    router.get(path, async (ctx) => {
      const { status, body, retryAfter } = await answer();
      ctx.status = status;
      if (retryAfter !== undefined) ctx.set('Retry-After', String(retryAfter));
      ctx.type = 'json';
      ctx.body = body;
    });
  }

  router.get('/api/operational-mode', async (ctx) => {
    ctx.body = { mode: await k.settings.get<OperationalMode>(DEFAULT_TENANT, OPERATIONAL_MODE_KEY, 'normal'), modes: OPERATIONAL_MODES };
  });

  router.post('/api/operational-mode', async (ctx) => {
    requireInstanceOwner(ctx.state.identity);
    const { mode } = validate<{ mode: OperationalMode }>('api/operational-mode.json', ctx.request.body);
    await k.settings.set(DEFAULT_TENANT, OPERATIONAL_MODE_KEY, mode);
    k.bus.publish({ topic: 'system.operational_mode', payload: { mode }, tenantId: null, source: 'kernel' });
    ctx.body = { mode };
  });

  router.get('/api/settings', async (ctx) => {
    const { identity } = ctx.state;
    ctx.body = {
      tenantId: identity.tenantId,
      role: identity.role,
      operationalMode: await k.settings.get(DEFAULT_TENANT, OPERATIONAL_MODE_KEY, 'normal'),
      settings: await k.settings.all(identity.tenantId),
      limits: { bodyLimitBytes: k.config.bodyLimitBytes, rateLimitPerMinute: k.config.rateLimitPerMinute },
      auth: { localAuthRequired: k.config.localAuthRequired, keyTtlDays: k.config.keyTtlDays, keyGraceSeconds: k.config.keyGraceSeconds },
    };
  });

  // A one-time ticket for the WebSocket, so a browser never puts its API key in a URL.
  router.post('/api/ws/ticket', async (ctx) => {
    ctx.status = 201;
    ctx.body = await k.ws.issueTicket(ctx.state.identity);
  });

  router.post('/api/selftest/run', async (ctx) => {
    requireInstanceOwner(ctx.state.identity);
    const { scope = 'all' } = validate<{ scope?: SelftestScope }>('api/selftest-run.json', ctx.request.body ?? {});
    // The port this request came in on (the main one or a further one an extension asked for), at the address the server is bound to.
    const report = await runSelftest(k, scope, selfUrl(k.config.host, ctx.req.socket.localPort ?? k.config.port));
    k.audit.append({ tenantId: ctx.state.identity.tenantId, actor: ctx.state.identity.actor, action: 'selftest.run', resource: 'server', detail: { scope, passed: report.passed, counts: report.counts } });
    ctx.body = report;
  });

  router.post('/api/backup', async (ctx) => {
    requireInstanceOwner(ctx.state.identity);
    ctx.status = 201;
    ctx.body = await backupAll(k.config, k.db);
  });

  router.post('/api/settings/api-key/rotate', async (ctx) => {
    const { identity } = ctx.state;
    requireRole(identity, 'owner');
    if (!identity.keyHash) throw new RoostError('VALIDATION_ERROR', 'call with the API key to rotate (Authorization: Bearer <key>)');
    const { key, record, previousExpiresAt } = await k.keys.rotate(identity.keyHash, k.config.keyGraceSeconds);
    ctx.status = 201;
    ctx.set('Cache-Control', 'no-store'); // a new key: never kept (not for an Idempotency-Key either)
    ctx.body = { apiKey: key, keyHash: record.keyHash, expiresAt: record.expiresAt, previous: { keyHash: identity.keyHash, validUntil: previousExpiresAt } };
  });

  router.get('/api/settings/api-key/status', async (ctx) => {
    const { identity } = ctx.state;
    const now = Date.now();
    const keys = (await k.keys.list(identity.tenantId)).filter((key) => !key.expiresAt || Date.parse(key.expiresAt) > now);
    const current = identity.keyHash ? keys.find((key) => key.keyHash === identity.keyHash) : undefined;
    ctx.body = {
      authenticated: identity.keyHash !== null,
      keyHash: identity.keyHash,
      createdAt: current?.createdAt ?? null,
      expiresAt: current?.expiresAt ?? null,
      expiresInSeconds: current?.expiresAt ? Math.round((Date.parse(current.expiresAt) - now) / 1000) : null,
      graceSeconds: k.config.keyGraceSeconds,
      activeKeys: keys.length,
    };
  });
}
