// Chainchat's allowlist: the addresses allowed to talk (owner entries only an owner adds or changes).
import { useState } from 'preact/hooks';
import { api } from '../api.js';
import type { Me } from '../app.js';
import { Button, Card, Empty, ErrorNote, Field, Loading, Table } from '../components/ui.js';
import { useAction, useGet } from '../hooks.js';

export function Allowlist({ me }: { me: Me }) {
  const entries = useGet('/api/allowlist?limit=100');
  const [form, setForm] = useState({ address: '', label: '', owner: false });
  const act = useAction(async (method: string, path: string, body?: unknown) => {
    await api(method, path, body);
    entries.reload();
  });
  const operator = me.role !== 'viewer';
  const entryPath = (address: string) => `/api/allowlist/${encodeURIComponent(address)}`;
  const relabel = (e: any) => {
    const label = prompt(`Label for ${e.address}`, e.label ?? '');
    if (label !== null) void act.run('PUT', entryPath(e.address), { label });
  };
  return (
    <Card title="Allowlist">
      <Loading loaded={entries}>
        {(data: any) => (data.entries.length === 0 ? <Empty>Nobody is on the allowlist.</Empty> : (
          <Table caption="Allowlist" head={['Address', 'Label', 'Owner', '']}>
            {data.entries.map((e: any) => (
              <tr key={e.address}>
                <td><code class="uri">{e.address}</code></td>
                <td>{e.label || '—'}</td>
                <td>{e.owner ? 'owner' : '—'}</td>
                <td>
                  {operator && (!e.owner || me.role === 'owner') && (
                    <span class="inline">
                      <Button kind="plain" disabled={act.busy} onClick={() => relabel(e)} aria-label={`Relabel ${e.label || e.address}`}>Relabel</Button>
                      <Button kind="danger" disabled={act.busy} onClick={() => act.run('DELETE', entryPath(e.address))} aria-label={`Remove ${e.label || e.address} from the allowlist`}>Remove</Button>
                    </span>
                  )}
                </td>
              </tr>
            ))}
          </Table>
        ))}
      </Loading>
      {operator && (
        <form class="grid" onSubmit={(e) => { e.preventDefault(); void act.run('POST', '/api/allowlist', { address: form.address.trim(), ...(form.label.trim() ? { label: form.label.trim() } : {}), owner: form.owner }).then((ok) => ok && setForm({ address: '', label: '', owner: false })); }}>
          <Field label="Algorand address" required maxLength={58} spellcheck={false} value={form.address} onInput={(e) => setForm({ ...form, address: e.currentTarget.value })} />
          <Field label="Label" value={form.label} onInput={(e) => setForm({ ...form, label: e.currentTarget.value })} />
          {me.role === 'owner' && <label class="check"><input type="checkbox" checked={form.owner} onChange={(e) => setForm({ ...form, owner: e.currentTarget.checked })} /> Owner address (privileged commands)</label>}
          <div><Button type="submit" disabled={act.busy}>Add to the allowlist</Button></div>
        </form>
      )}
      <ErrorNote error={act.error} />
    </Card>
  );
}
