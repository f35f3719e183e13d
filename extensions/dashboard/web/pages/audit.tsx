// The audit log with filters (action and resource prefixes, actor, time range) and, for the instance
// owner, whether the hash chain verifies against its checkpoint.
import { useState } from 'preact/hooks';
import { q } from '../api.js';
import type { Me } from '../app.js';
import { Button, Card, Empty, Field, Loading, Page, Table, when } from '../components/ui.js';
import { useGet } from '../hooks.js';

const PAGE = 50;

export function Audit({ me }: { me: Me }) {
  const [form, setForm] = useState({ action: '', resource: '', actor: '', since: '' });
  const [filters, setFilters] = useState(form);
  const [offset, setOffset] = useState(0);
  const since = filters.since ? new Date(filters.since).toISOString() : undefined;
  const log = useGet(`/api/audit-log${q({ action: filters.action, resource: filters.resource, actor: filters.actor, since, limit: PAGE, offset })}`);
  const set = (field: keyof typeof form) => (e: { currentTarget: { value: string } }) => setForm({ ...form, [field]: e.currentTarget.value });
  return (
    <Page title="Audit log">
      {me.role === 'owner' && <ChainStatus />}
      <Card title="Filters">
        <form class="grid" onSubmit={(e) => { e.preventDefault(); setOffset(0); setFilters(form); }}>
          <Field label="Action starts with" value={form.action} onInput={set('action')} />
          <Field label="Resource starts with" value={form.resource} onInput={set('resource')} />
          <Field label="Actor" value={form.actor} onInput={set('actor')} />
          <Field label="Since" type="datetime-local" value={form.since} onInput={set('since')} />
          <div><Button type="submit">Apply filters</Button></div>
        </form>
      </Card>
      <Card title="Entries">
        <Loading loaded={log}>
          {(data: any) => data.entries.length === 0 ? <Empty>No entries match.</Empty> : (
            <>
              <Table caption="Audit entries" head={['#', 'Time', 'Actor', 'Action', 'Resource', 'Detail']}>
                {data.entries.map((e: any) => (
                  <tr key={e.seq}>
                    <td>{e.seq}</td>
                    <td>{when(e.ts)}</td>
                    <td>{e.actor}</td>
                    <td>{e.action}</td>
                    <td><code>{e.resource}</code></td>
                    <td><code>{JSON.stringify(e.detail ?? {}).slice(0, 100)}</code></td>
                  </tr>
                ))}
              </Table>
              <p class="pager">
                {offset + 1}–{offset + data.entries.length} of {data.total}{' '}
                <Button kind="plain" disabled={offset === 0} onClick={() => setOffset(Math.max(0, offset - PAGE))}>Newer</Button>{' '}
                <Button kind="plain" disabled={offset + PAGE >= data.total} onClick={() => setOffset(offset + PAGE)}>Older</Button>
              </p>
            </>
          )}
        </Loading>
      </Card>
    </Page>
  );
}

function ChainStatus() {
  const verify = useGet('/api/audit-log/verify');
  return (
    <Card title="Chain verification">
      {verify.error?.status === 403 ? <Empty>Only the instance owner verifies the chain.</Empty> : (
        <Loading loaded={verify}>
          {(v: any) => (
            <div role="status">
              <p class={v.valid ? 'ok-text' : 'bad-text'}>
                <strong>{v.valid ? 'The chain verifies' : 'The chain is broken'}</strong>: {v.checked} entries checked
                {v.checkpoint ? `, checkpoint at #${v.checkpoint.seq}` : ''}.
              </p>
              {(v.breaks ?? []).length > 0 && <ul>{v.breaks.map((b: any) => <li key={`${b.seq}${b.reason}`}>#{b.seq}: {b.reason}</li>)}</ul>}
              <Button kind="plain" onClick={verify.reload}>Verify again</Button>
            </div>
          )}
        </Loading>
      )}
    </Card>
  );
}
