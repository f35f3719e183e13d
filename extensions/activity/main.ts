// The feed extension keeps the activity of each tenant from the bus and serves it newest first.
import { validationError } from '../../protocol/errors.js';
import type { Migration } from '../../lib/storage.js';
import { runExtension } from '../../sdk/extension.js';
import { likeClause, paged, startingWith } from '../../sdk/db.js';
import type { SqlValue } from '../../sdk/sql.js';
import { ok, page, queryString } from '../../sdk/http.js';
import { TurnBatch } from '../../sdk/turn-batch.js';
import { itemFor } from './items.js';

const KEEP_DAYS = 90;

const migrations: Migration[] = [
  {
    name: '001_feed_items',
    async up(db) {
      await db.schema.createTable('feed_items', (t) => {
        t.increments('id').primary();
        t.string('tenant_id').notNullable();
        t.string('at').notNullable();
        t.string('kind').notNullable();
        t.text('summary').notNullable();
        t.string('resource').notNullable();
        t.text('data').notNullable();
        t.index(['tenant_id', 'id']);
      });
    },
  },
];

interface FeedRow {
  tenant_id: string;
  at: string;
  kind: string;
  summary: string;
  resource: string;
  data: string;
}

/** The items of one turn's events go in one insert: six columns a row keeps it well under SQLite's bound-parameter limit. */
const ROWS_PER_INSERT = 100;

runExtension<{ feed: TurnBatch<FeedRow> }>({
  migrations,
  async setup(ctx) {
    const cutoff = new Date(Date.now() - KEEP_DAYS * 86_400_000).toISOString();
    await ctx.db('feed_items').where('at', '<', cutoff).delete();
    return { feed: new TurnBatch((rows) => ctx.db('feed_items').insert(rows), ROWS_PER_INSERT) };
  },
  async event(event, _ctx, { feed }) {
    if (!event.tenantId || typeof event.payload !== 'object' || event.payload === null) return;
    const item = itemFor(event.topic, event.payload as Record<string, unknown>);
    if (!item) return;
    await feed.add({ tenant_id: event.tenantId, at: new Date().toISOString(), kind: item.kind, summary: item.summary, resource: item.resource, data: JSON.stringify(item.data) });
  },
  shutdown: (_ctx, { feed }) => feed.idle(),
  routes: {
    async 'GET /api/feed/history'(req, ctx) {
      const paging = page(req.query);
      const kind = queryString(req.query, 'kind');
      const since = queryString(req.query, 'since');
      if (since !== undefined && Number.isNaN(Date.parse(since))) throw validationError('query.since must be an ISO 8601 date-time');
      let from = 'feed_items WHERE tenant_id = ?';
      const params: SqlValue[] = [req.auth.tenantId];
      if (kind) {
        from += ` AND ${likeClause(ctx.sql.dialect, 'kind')}`;
        params.push(startingWith(kind));
      }
      if (since) {
        from += ' AND at >= ?';
        params.push(new Date(since).toISOString());
      }
      const { rows, total, hasMore } = await paged<Record<string, string>>(ctx.sql, { from, params, orderBy: 'id DESC' }, paging);
      const items = rows.map((r) => ({ id: r.id, at: r.at, kind: r.kind, summary: r.summary, resource: r.resource, data: JSON.parse(r.data) as unknown }));
      return ok({ items, ...(total === undefined ? {} : { total }), hasMore, limit: paging.limit, offset: paging.offset });
    },
  },
});
