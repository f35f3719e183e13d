// The code host's REST API: its status, the tenant's allowlist and blocklist, and the internal routes
// the work tasks use.
import { join } from 'node:path';
import { notFound, conflict } from '../../protocol/errors.js';
import { validate } from '../../protocol/validate.js';
import type { ExtensionContext, RouteHandler } from '../../sdk/extension.js';
import { created, noContent, ok, queryString } from '../../sdk/http.js';
import { resolveReferences } from '../../sdk/references.js';
import { baseUrl, configured, octokit } from './client.js';
import { Lists, normaliseRepo } from './lists.js';
import { openPull } from './pulls.js';
import { receive } from './inbound.js';
import type { State } from './state.js';
import { VCSHOST_ROUTES, type BlockedReply, type OpenPullReply, type OpenPullRequest } from './contract.js';

const schema = (ctx: ExtensionContext, name: string) => join(ctx.init.plugin.dir, 'schemas', name);
const lists = (ctx: ExtensionContext) => new Lists(ctx.db);

export const routes: Record<string, RouteHandler<State>> = {
  async 'GET /api/vcshost/status'(_req, ctx) {
    const base = { configured: configured(ctx), baseUrl: baseUrl(ctx) };
    if (!base.configured) return ok({ ...base, reachable: false, login: null, scopes: [], error: 'no token: set ROOST_EXT_VCSHOST_TOKEN' });
    try {
      const reply = await octokit(ctx).users.getAuthenticated();
      const scopes = String(reply.headers['x-oauth-scopes'] ?? '').split(',').map((s) => s.trim()).filter(Boolean);
      // 0 left is a figure (the one that matters most), not an absent header.
      const remaining = Number(reply.headers['x-ratelimit-remaining'] ?? NaN);
      return ok({ ...base, reachable: true, login: reply.data.login, scopes, rateLimitRemaining: Number.isInteger(remaining) ? remaining : null });
    } catch (err) {
      const status = (err as { status?: number }).status;
      return ok({ ...base, reachable: status !== undefined, login: null, scopes: [], error: status === 401 ? 'the code host refused the token (401)' : `the code host did not answer: ${(err as Error).message}` });
    }
  },

  async 'GET /api/vcshost-allowlist'(req, ctx) {
    return ok({ entries: await lists(ctx).allowlist(req.auth.tenantId) });
  },

  async 'POST /api/vcshost-allowlist'(req, ctx) {
    const input = validate<{ username: string; label?: string; agentId?: string | null }>(schema(ctx, 'allowlist-create.json'), req.body);
    await resolveReferences(ctx.host, { requestId: req.id }, [['agent', input.agentId, 'body.agentId']]);
    const entry = await lists(ctx).allow(req.auth.tenantId, input);
    if (!entry) throw conflict(`${input.username} is on the allowlist already`);
    return created(entry);
  },

  async 'PUT /api/vcshost-allowlist/:username'(req, ctx) {
    const input = validate<{ label?: string; agentId?: string | null }>(schema(ctx, 'allowlist-update.json'), req.body);
    await resolveReferences(ctx.host, { requestId: req.id }, [['agent', input.agentId, 'body.agentId']]);
    const entry = await lists(ctx).updateAllowed(req.auth.tenantId, req.params.username!, input);
    if (!entry) throw notFound(`allowlist entry ${req.params.username}`);
    return ok(entry);
  },

  async 'DELETE /api/vcshost-allowlist/:username'(req, ctx) {
    if (!(await lists(ctx).disallow(req.auth.tenantId, req.params.username!))) throw notFound(`allowlist entry ${req.params.username}`);
    return noContent();
  },

  async 'GET /api/repo-blocklist'(req, ctx) {
    return ok({ entries: await lists(ctx).blocklist(req.auth.tenantId) });
  },

  async 'POST /api/repo-blocklist'(req, ctx) {
    const input = validate<{ repo: string; reason?: string }>(schema(ctx, 'blocklist-create.json'), req.body);
    const { entry, created: isNew } = await lists(ctx).block(req.auth.tenantId, input.repo, input.reason ?? '');
    if (isNew) ctx.host.audit('codehost.repo_blocked', `repo:${entry.repo}`, { reason: entry.reason });
    return isNew ? created(entry) : ok(entry);
  },

  async 'DELETE /api/repo-blocklist/:repo'(req, ctx) {
    const repo = normaliseRepo(req.params.repo!);
    if (!(await lists(ctx).unblock(req.auth.tenantId, repo))) throw notFound(`blocklist entry ${repo}`);
    ctx.host.audit('codehost.repo_unblocked', `repo:${repo}`, {});
    return noContent();
  },

  'POST /webhooks/vcshost': receive,

  async [VCSHOST_ROUTES.blocked](req, ctx) {
    const repo = queryString(req.query, 'repo') ?? '';
    const entry = await lists(ctx).blockedBy(req.auth.tenantId, repo);
    return ok({ repo: normaliseRepo(repo), blocked: entry !== undefined, entry: entry ?? null } satisfies BlockedReply);
  },

  async [VCSHOST_ROUTES.openPull](req, ctx) {
    const input = validate<OpenPullRequest>(schema(ctx, 'pull-create.json'), req.body);
    return created((await openPull(ctx, req.auth.tenantId, input)) satisfies OpenPullReply);
  },
};
