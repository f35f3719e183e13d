// Work tasks and their pull requests, shown when the server has them (GET /api/work-tasks answers).
import { api, listOf } from '../api.js';
import { Button, Card, Empty, ErrorNote, Loading, Page, Status, Table, when } from '../components/ui.js';
import { useAction, useGet } from '../hooks.js';

/** A link only when it is one: a PR address from the server is shown, never run. */
const safeUrl = (value: unknown): string | null => (typeof value === 'string' && /^https?:\/\//.test(value) ? value : null);

export function WorkTasks() {
  const tasks = useGet('/api/work-tasks?limit=100', 5000);
  const cancel = useAction(async (id: string) => {
    await api('POST', `/api/work-tasks/${encodeURIComponent(id)}/cancel`, {});
    tasks.reload();
  });
  if (tasks.error && [404, 503].includes(tasks.error.status)) {
    return <Page title="Work tasks"><Empty>Work tasks are not available on this server.</Empty></Page>;
  }
  return (
    <Page title="Work tasks">
      <ErrorNote error={cancel.error} />
      <Card title="All work tasks">
        <Loading loaded={tasks}>
          {(data) => listOf(data).length === 0 ? <Empty>No work tasks yet.</Empty> : (
            <Table caption="Work tasks" head={['Task', 'Status', 'Branch', 'Pull request', 'Created', '']}>
              {listOf(data).map((t: any) => {
                const pr = safeUrl(t.prUrl ?? t.pr?.url ?? t.pr);
                return (
                  <tr key={t.id}>
                    <td>{String(t.description ?? '').slice(0, 100)}</td>
                    <td><Status value={t.status} /></td>
                    <td><code>{t.branch ?? '—'}</code></td>
                    <td>{pr ? <a href={pr} rel="noopener noreferrer" target="_blank">{pr.replace(/^https?:\/\//, '')}</a> : '—'}</td>
                    <td>{when(t.createdAt)}</td>
                    <td>{['pending', 'running', 'queued'].includes(t.status) && <Button kind="danger" onClick={() => cancel.run(t.id)}>Cancel</Button>}</td>
                  </tr>
                );
              })}
            </Table>
          )}
        </Loading>
      </Card>
    </Page>
  );
}
