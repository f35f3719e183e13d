// Analytics: spending per day, sessions by agent, source and status, and the performance trends.
import { useState } from 'preact/hooks';
import { listOf, q } from '../api.js';
import { BarList, TimeChart } from '../components/chart.js';
import { Card, Empty, Loading, micro, Page, Select } from '../components/ui.js';
import { useGet } from '../hooks.js';

const seconds = (iso: string) => Math.floor(Date.parse(iso) / 1000);

export function Analytics() {
  const [days, setDays] = useState('30');
  const overview = useGet('/api/analytics/overview');
  const spending = useGet(`/api/analytics/spending?days=${days}`);
  const sessions = useGet('/api/analytics/sessions');
  const agents = useGet('/api/agents?limit=200');
  const names = new Map(listOf(agents.data).map((a: any) => [a.id, a.name]));
  return (
    <Page title="Analytics">
      <Loading loaded={overview}>
        {(o: any) => (
          <div class="stats">
            <p><span>Sessions</span><strong>{o.sessions?.total ?? 0}</strong></p>
            <p><span>Running</span><strong>{o.sessions?.running ?? 0}</strong></p>
            <p><span>Agents</span><strong>{o.agents ?? '—'}</strong></p>
            <p><span>Spent today</span><strong>{micro(o.spending?.today)}</strong></p>
            <p><span>Last 30 days</span><strong>{micro(o.spending?.last30Days)}</strong></p>
          </div>
        )}
      </Loading>
      <Card title="Spending per day">
        <Select label="Period" value={days} onChange={(e) => setDays(e.currentTarget.value)} options={[['7', 'Last 7 days'], ['30', 'Last 30 days'], ['90', 'Last 90 days']]} />
        <Loading loaded={spending}>
          {(s: any) => (
            <TimeChart
              title="Credits spent per day"
              unit="credits"
              bars
              series={[{ label: 'spent', points: (s.series ?? []).map((p: any): [number, number] => [seconds(`${p.date}T00:00:00Z`), p.total / 1_000_000]) }]}
            />
          )}
        </Loading>
      </Card>
      <Card title="Sessions">
        <Loading loaded={sessions}>
          {(s: any) => (
            <div class="columns">
              <BarList title="By agent" rows={(s.byAgent ?? []).map((r: any) => ({ label: names.get(r.agentId) ?? String(r.agentId).slice(0, 8), value: r.count, note: micro(r.cost) }))} />
              <BarList title="By source" rows={(s.bySource ?? []).map((r: any) => ({ label: String(r.source), value: r.count }))} />
              <BarList title="By status" rows={(s.byStatus ?? []).map((r: any) => ({ label: String(r.status), value: r.count }))} />
            </div>
          )}
        </Loading>
      </Card>
      <PerformanceTrends />
    </Page>
  );
}

function PerformanceTrends() {
  const metrics = useGet('/api/performance/metrics');
  const names: string[] = listOf(metrics.data).map((m: any) => (typeof m === 'string' ? m : m.name)).filter(Boolean);
  const [metric, setMetric] = useState<string | null>(null);
  const chosen = metric ?? names[0] ?? null;
  const trends = useGet(chosen ? `/api/performance/trends${q({ metric: chosen })}` : null);
  if (metrics.error) return <Card title="Performance trends"><Empty>{metrics.error.status === 403 ? 'Performance trends are for the instance owner.' : 'Performance trends are not available on this server.'}</Empty></Card>;
  return (
    <Card title="Performance trends">
      {names.length > 0 && <Select label="Metric" value={chosen ?? ''} onChange={(e) => setMetric(e.currentTarget.value)} options={names.map((n) => [n, n])} />}
      {chosen === null ? <Empty>No metrics collected yet.</Empty> : (
        <Loading loaded={trends}>
          {(t: any) => {
            const series = (t.series ?? []).slice(0, 4).map((s: any) => ({
              label: Object.values(s.labels ?? {}).join(' ') || s.metric,
              points: (s.points ?? []).map((p: any): [number, number] => [seconds(p.at), Number(p.value)]),
            }));
            return series.length === 0 ? <Empty>No points in the last 24 hours.</Empty> : <TimeChart title={`${chosen} (${t.unit ?? ''})`} unit={t.unit ?? ''} series={series} />;
          }}
        </Loading>
      )}
    </Card>
  );
}
