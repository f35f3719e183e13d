// MCP tools: the health trends an agent may read, and a graceful restart (privileged). Both concern the
// whole server, so they answer only agents of the instance's own tenant: an owner of another tenant may
// grant its agents tools, but never a view of, or power over, the server.
import type { ToolHandler } from '../../sdk/extension.js';
import { INSTANCE_TENANT } from '../../sdk/roles.js';
import { findRegressions } from './regressions.js';
import { METRICS } from './sampler.js';
import { SeriesStore } from './store.js';

const text = (value: string, isError = false) => ({ content: [{ type: 'text' as const, text: value }], ...(isError ? { isError: true } : {}) });
const refused = (what: string) => text(`${what} concerns the whole server: only agents of the instance's own tenant may use it`, true);

const HEADLINES = ['http.latency_p95_ms', 'http.error_rate', 'http.request_rate', 'kernel.cpu_percent', 'kernel.memory_bytes', 'kernel.event_loop_delay_p99_ms'];

export const tools: Record<string, ToolHandler> = {
  async svc_check_health_trends(args, caller, ctx) {
    if (caller.tenantId !== INSTANCE_TENANT) return refused('svc_check_health_trends');
    const hours = Number(args.hours ?? 24);
    const recentCount = typeof args.recent === 'number' ? args.recent : undefined;
    const now = Date.now();
    const metric = typeof args.metric === 'string' ? args.metric : undefined;
    if (metric !== undefined && !METRICS[metric]) return text(`"${metric}" is not a metric: one of ${Object.keys(METRICS).join(', ')}`, true);
    const series = await new SeriesStore(ctx.db).series({ ...(metric ? { metric } : {}), from: now - hours * 3_600_000, to: now });
    if (series.length === 0) return text(`no performance samples in the last ${hours} h yet (one is taken every interval; POST /api/performance/collect takes one now)`);
    const window = recentCount === undefined ? 'the last 15 min' : `the last ${recentCount} sample${recentCount === 1 ? '' : 's'} of each series`;
    const lines = [`health over the last ${hours} h (recent = ${window}, against the rest as baseline):`];
    for (const s of series.filter((s) => (metric ? true : HEADLINES.includes(s.metric)) && (s.labels.route === undefined || s.labels.route === '*'))) {
      const first = s.points[0]!.value;
      const last = s.points.at(-1)!.value;
      const labels = Object.entries(s.labels).map(([k, v]) => `${k}=${v}`).join(' ');
      lines.push(`- ${s.metric}${labels ? ` {${labels}}` : ''}: ${round(first)} → ${round(last)} ${METRICS[s.metric]?.unit ?? ''}`);
    }
    const regressions = findRegressions(series, { ...(recentCount === undefined ? { recentFrom: now - 15 * 60_000 } : { recentCount }), k: 3, minChange: 0.2, minBaseline: 5 });
    lines.push(regressions.length === 0 ? `no regressions in ${window}` : `${regressions.length} regression(s) in ${window}:`);
    for (const r of regressions.slice(0, 20)) {
      lines.push(`- ${r.metric} ${JSON.stringify(r.labels)}: ${round(r.recent.median)} ${r.unit} now against ${round(r.baseline.median)} before (threshold ${round(r.threshold)})`);
    }
    return text(lines.join('\n'));
  },

  async svc_restart_server(args, caller, ctx) {
    if (caller.tenantId !== INSTANCE_TENANT) return refused('svc_restart_server');
    const reason = String(args.reason ?? 'asked by an agent');
    ctx.host.audit('server.restart_requested', 'server', { agentId: caller.agentId, sessionId: caller.sessionId, reason });
    await ctx.host.restart(`agent ${caller.agentId ?? '-'}: ${reason}`);
    return text('the server restarts gracefully now: running sessions stop and resume once it is back');
  },
};

function round(n: number): string {
  return Math.abs(n) >= 100 ? n.toFixed(0) : n.toFixed(2);
}
