// Federation: the servers this tenant pulls listings from (added and removed by an owner), a sync of
// them all, and the listings pulled, each with the server it came from.
import { useState } from 'preact/hooks';
import { api } from '../api.js';
import { Button, Card, Empty, ErrorNote, Field, Loading, Table, micro, when } from '../components/ui.js';
import { useAction, useGet } from '../hooks.js';

export function MarketFederated() {
  const instances = useGet('/api/marketplace/federation/instances');
  const listings = useGet('/api/marketplace/federated?limit=100');
  const [url, setUrl] = useState('');
  const act = useAction(async (method: string, path: string, body?: unknown) => {
    await api(method, path, body);
    instances.reload();
    listings.reload();
  });
  return (
    <>
      <Card title="Federated servers">
        <Loading loaded={instances}>
          {(data: any) => (data.instances.length === 0 ? <Empty>No federated server yet.</Empty> : (
            <Table caption="Federated servers" head={['Server', 'Listings', 'Last sync', 'Status', '']}>
              {data.instances.map((i: any) => (
                <tr key={i.url}>
                  <td><code>{i.url}</code></td>
                  <td>{i.listingCount}</td>
                  <td>{when(i.lastSyncAt)}</td>
                  <td>{i.lastStatus ?? '—'}{i.lastError ? <span class="bad-text"> {i.lastError}</span> : ''}</td>
                  <td><Button kind="danger" disabled={act.busy} onClick={() => act.run('DELETE', `/api/marketplace/federation/instances/${encodeURIComponent(i.url)}`)} aria-label={`Remove ${i.url}`}>Remove</Button></td>
                </tr>
              ))}
            </Table>
          ))}
        </Loading>
        <form class="inline" onSubmit={(e) => { e.preventDefault(); void act.run('POST', '/api/marketplace/federation/instances', { url: url.trim() }).then((ok) => ok && setUrl('')); }}>
          <Field label="Server address" type="url" required hint="its full address, starting with https" value={url} onInput={(e) => setUrl(e.currentTarget.value)} />
          <Button type="submit" disabled={act.busy}>Add server</Button>
          <Button kind="plain" disabled={act.busy} onClick={() => act.run('POST', '/api/marketplace/federation/sync', {})}>Sync now</Button>
        </form>
        <ErrorNote error={act.error} />
      </Card>
      <Card title="Federated listings">
        <Loading loaded={listings}>
          {(data: any) => (data.listings.length === 0 ? <Empty>No listing pulled yet.</Empty> : (
            <Table caption="Federated listings" head={['Name', 'Kind', 'Price (credits)', 'Server', 'Synced']}>
              {data.listings.map((l: any) => (
                <tr key={`${l.instance}/${l.id}`}>
                  <td>{l.name}{l.description ? <div class="muted">{l.description}</div> : null}</td>
                  <td>{String(l.kind).replace('_', ' ')}</td>
                  <td class="cost">{l.priceMicroUnits ? micro(l.priceMicroUnits) : 'free'}</td>
                  <td><code>{l.instance}</code></td>
                  <td>{when(l.syncedAt)}</td>
                </tr>
              ))}
            </Table>
          ))}
        </Loading>
      </Card>
    </>
  );
}
