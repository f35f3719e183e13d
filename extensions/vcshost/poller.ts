// Mention polling, for code hosts that cannot send webhooks: each active config's repository is read
// for comments updated since the last poll, with the last ETag (a 304 costs no rate limit), and each
// comment is taken once (mention_seen) however often a poll sees it, so a mention starts one session.
// When the host's rate limit runs low, polls wait for its reset. One instance polls (the leader of
// "codehost-mention-polling"); the extension is woken with the server while a config is active.
import type { ExtensionContext } from '../../sdk/extension.js';
import { integerSetting } from '../../sdk/settings.js';
import { hostError, octokit, ownerRepo } from './client.js';
import { Lists } from './lists.js';
import type { Deliverer } from './deliveries.js';
import { handleMention } from './mentions.js';
import { PollStore, type PollRow } from './polls-store.js';

interface Comment {
  id: number;
  body?: string;
  user: { login: string } | null;
  updated_at: string;
  html_url: string;
  issue_url: string;
}

export class Poller {
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<void> | undefined;
  private awake = false;
  readonly store: PollStore;
  private readonly floor: number;
  /** The code host's rate limit as last seen (for /stats). */
  rateLimit: { remaining: number | null; resetAt: string | null } = { remaining: null, resetAt: null };

  constructor(private readonly ctx: ExtensionContext, private readonly deliverer: Deliverer) {
    this.store = new PollStore(ctx.db);
    this.floor = integerSetting(ctx, 'POLL_RATE_LIMIT_FLOOR', 10, 0, 5000);
    this.timer = setInterval(() => this.kick(), integerSetting(ctx, 'POLL_TICK_MS', 1000, 50, 60_000));
    this.timer.unref();
    this.kick();
  }

  stop(): void {
    clearInterval(this.timer);
  }

  kick(): void {
    this.running ??= this.pollDue()
      .catch((err: Error) => this.ctx.host.log('warn', `mention polling: ${err.message}`))
      .finally(() => (this.running = undefined));
  }

  private async pollDue(): Promise<void> {
    const active = await this.store.anyActive();
    if (active !== this.awake) {
      this.awake = active;
      await this.ctx.host.wakeOnStart(active).catch(() => undefined);
    }
    if (!active || !(await this.ctx.host.leader('codehost-mention-polling'))) return;
    for (const config of await this.store.due(Date.now())) await this.poll(config);
  }

  private async poll(config: PollRow): Promise<void> {
    const next = Date.now() + config.interval_seconds * 1000;
    if (await new Lists(this.ctx.db).blockedBy(config.tenant_id, config.repo)) {
      await this.store.polled(config.id, { next_poll_at: next, last_status: null, last_error: `repository ${config.repo} is on the blocklist` }, false);
      return;
    }
    let reply;
    try {
      reply = await octokit(this.ctx).request('GET /repos/{owner}/{repo}/issues/comments', {
        ...ownerRepo(config.repo), sort: 'updated', direction: 'asc', per_page: 100, ...(config.since ? { since: config.since } : {}),
        headers: config.etag ? { 'if-none-match': config.etag } : {},
      });
    } catch (err) {
      const status = (err as { status?: number }).status;
      const headers = (err as { response?: { headers?: Record<string, string> } }).response?.headers ?? {};
      const wait = this.noteRateLimit(headers);
      if (status === 304) return this.store.polled(config.id, { next_poll_at: Math.max(next, wait), last_status: 304, last_error: null }, true);
      return this.store.polled(config.id, { next_poll_at: Math.max(next, wait), last_status: status ?? null, last_error: hostError(err, `polling ${config.repo}`).message }, false);
    }
    const wait = this.noteRateLimit(reply.headers as Record<string, string>);
    const comments = reply.data as Comment[];
    for (const comment of comments) await this.consider(config, comment);
    const since = comments.map((c) => c.updated_at).sort().at(-1) ?? config.since;
    await this.store.polled(config.id, { next_poll_at: Math.max(next, wait), etag: (reply.headers.etag as string | undefined) ?? null, since, last_status: reply.status, last_error: null }, false);
  }

  private async consider(config: PollRow, comment: Comment): Promise<void> {
    const sender = comment.user?.login ?? '';
    const id = String(comment.id);
    if (!(await this.store.take(config.id, { id, sender, url: comment.html_url }))) return; // seen before
    const issue = /\/issues\/(\d+)$/.exec(comment.issue_url)?.[1];
    const outcome = await handleMention(this.ctx, this.deliverer, config.tenant_id, {
      repo: config.repo, sender, text: comment.body ?? '', where: issue ? `${config.repo}#${issue}` : config.repo, url: comment.html_url,
    }).catch((err: Error) => ({ action: 'failed', reason: err.message }) as const);
    await this.store.settle(config.id, id, outcome);
  }

  /** Remembers the rate limit; answers when the next poll may go (0: now) when it runs low. */
  private noteRateLimit(headers: Record<string, string | undefined>): number {
    const remaining = Number(headers['x-ratelimit-remaining']);
    const reset = Number(headers['x-ratelimit-reset']);
    if (!Number.isFinite(remaining)) return 0;
    this.rateLimit = { remaining, resetAt: Number.isFinite(reset) ? new Date(reset * 1000).toISOString() : null };
    return remaining <= this.floor && Number.isFinite(reset) ? reset * 1000 : 0;
  }
}
