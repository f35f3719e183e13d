// Schedules: the list with pause and resume, a trigger now, links to create and edit (schedule-form.tsx),
// and the history of executions.
import { api, listOf } from '../api.js';
import { Button, Card, Empty, ErrorNote, link, Loading, Page, Status, Table, when } from '../components/ui.js';
import { useAction, useGet } from '../hooks.js';

export function Schedules() {
  const schedules = useGet('/api/schedules?limit=200', 10000);
  const executions = useGet('/api/schedule-executions?limit=50', 5000);
  const bulk = useAction(async (action: 'pause' | 'resume', id: string) => {
    await api('POST', '/api/schedules/bulk', { action, ids: [id] });
    schedules.reload();
  });
  const trigger = useAction(async (id: string) => {
    await api('POST', `/api/schedules/${encodeURIComponent(id)}/trigger`, {});
    executions.reload();
  });
  const names = new Map(listOf(schedules.data).map((s: any) => [s.id, s.name]));
  return (
    <Page title="Schedules" actions={<a class="btn btn-primary" href="#/schedules/new">New schedule</a>}>
      <ErrorNote error={bulk.error ?? trigger.error} />
      <Card title="All schedules">
        <Loading loaded={schedules}>
          {(data) => listOf(data).length === 0 ? <Empty>No schedules yet.</Empty> : (
            <Table caption="Schedules" head={['Name', 'When', 'State', 'Next run', '']}>
              {listOf(data).map((s: any) => (
                <tr key={s.id}>
                  <td><a href={link('schedules', s.id)}>{s.name ?? s.id.slice(0, 8)}</a></td>
                  <td><code>{s.cron ?? (s.intervalSeconds ? `every ${s.intervalSeconds} s` : '—')}</code></td>
                  <td><Status value={s.status === 'paused' ? 'paused' : 'active'} />{s.pausedReason ? ` ${s.pausedReason}` : ''}</td>
                  <td>{when(s.nextRunAt)}</td>
                  <td>
                    {s.status === 'paused'
                      ? <Button kind="plain" onClick={() => bulk.run('resume', s.id)} aria-label={`Resume ${s.name}`}>Resume</Button>
                      : <Button kind="plain" onClick={() => bulk.run('pause', s.id)} aria-label={`Pause ${s.name}`}>Pause</Button>}{' '}
                    <Button kind="plain" onClick={() => trigger.run(s.id)} aria-label={`Run now: ${s.name}`}>Run now</Button>
                  </td>
                </tr>
              ))}
            </Table>
          )}
        </Loading>
      </Card>
      <Card title="Run history">
        <Loading loaded={executions}>
          {(data) => listOf(data).length === 0 ? <Empty>No executions yet.</Empty> : (
            <Table caption="Schedule executions" head={['Schedule', 'Status', 'Started', 'Result']}>
              {listOf(data).map((e: any) => (
                <tr key={e.id}>
                  <td>{names.get(e.scheduleId) ?? e.scheduleId?.slice(0, 8)}</td>
                  <td><Status value={e.status} /></td>
                  <td>{when(e.startedAt ?? e.createdAt)}</td>
                  <td>{typeof e.result === 'string' ? e.result.slice(0, 120) : e.result ? JSON.stringify(e.result).slice(0, 120) : '—'}</td>
                </tr>
              ))}
            </Table>
          )}
        </Loading>
      </Card>
    </Page>
  );
}
