// Chainchat's keys: PSK contacts (make, rename, remove; each one's QR code, drawn by the server as SVG
// and shown as an image from a data: URL, never put into the page as markup) and the tenant's exchange
// URI with its rotation.
import { useState } from 'preact/hooks';
import { api } from '../api.js';
import { Button, Card, Empty, ErrorNote, Field, Loading } from '../components/ui.js';
import { useAction, useGet } from '../hooks.js';

/** The SVG text as an image source: an <img> runs no script and reaches nothing, whatever the text holds. */
const svgImage = (svg: string): string => `data:image/svg+xml;charset=utf-8,${encodeURIComponent(svg)}`;

export function Contacts({ operator }: { operator: boolean }) {
  const contacts = useGet('/api/chainchat/psk-contacts?limit=100');
  const [name, setName] = useState('');
  const [shown, setShown] = useState<{ id: string; name: string; uri: string; svg: string } | null>(null);
  const act = useAction(async (method: string, path: string, body?: unknown) => {
    await api(method, path, body);
    contacts.reload();
  });
  const qr = useAction(async (contact: any) => {
    const code = await api('GET', `/api/chainchat/psk-contacts/${encodeURIComponent(contact.id)}/qr`);
    setShown({ id: contact.id, name: contact.name, uri: code.uri, svg: code.svg });
  });
  const rename = (contact: any) => {
    const next = prompt(`New name for ${contact.name}`, contact.name);
    if (next && next.trim()) void act.run('PATCH', `/api/chainchat/psk-contacts/${encodeURIComponent(contact.id)}`, { name: next.trim() });
  };
  return (
    <Card title="Contacts with a shared key (PSK)">
      <Loading loaded={contacts}>
        {(data: any) => (data.contacts.length === 0 ? <Empty>No contact with a shared key yet.</Empty> : (
          <ul class="questions" aria-label="PSK contacts">
            {data.contacts.map((c: any) => (
              <li key={c.id} class="question">
                <strong>{c.name}</strong> <span class="muted">{c.address ? <code>{c.address}</code> : 'not bound to an address yet'}</span>
                {operator && (
                  <span class="inline">
                    <Button kind="plain" disabled={qr.busy} onClick={() => qr.run(c)} aria-label={`Show the QR code of ${c.name}`}>QR code</Button>
                    <Button kind="plain" disabled={act.busy} onClick={() => rename(c)} aria-label={`Rename ${c.name}`}>Rename</Button>
                    <Button kind="danger" disabled={act.busy} onClick={() => confirm(`Remove ${c.name} and its key?`) && act.run('DELETE', `/api/chainchat/psk-contacts/${encodeURIComponent(c.id)}`)} aria-label={`Remove ${c.name}`}>Remove</Button>
                  </span>
                )}
              </li>
            ))}
          </ul>
        ))}
      </Loading>
      {shown && (
        <figure class="qr">
          <img src={svgImage(shown.svg)} alt={`QR code of the PSK contact ${shown.name}`} width={220} height={220} />
          <figcaption>Scan it with the wallet app, or give it this URI (it holds the contact's secret key): <code class="uri">{shown.uri}</code></figcaption>
        </figure>
      )}
      {operator && (
        <form class="inline" onSubmit={(e) => { e.preventDefault(); void act.run('POST', '/api/chainchat/psk-contacts', { name: name.trim() }).then((ok) => ok && setName('')); }}>
          <Field label="Contact name" required maxLength={200} value={name} onInput={(e) => setName(e.currentTarget.value)} />
          <Button type="submit" disabled={act.busy}>Add contact</Button>
        </form>
      )}
      <ErrorNote error={act.error ?? qr.error} />
    </Card>
  );
}

export function Exchange() {
  const exchange = useGet('/api/chainchat/psk-exchange');
  const [previous, setPrevious] = useState<string | null>(null);
  const rotate = useAction(async () => {
    const next = await api('POST', '/api/chainchat/psk-exchange', {});
    setPrevious(next.previousExpiresAt ?? null);
    exchange.reload();
  });
  return (
    <Card title="Exchange URI">
      <p class="muted">The tenant's open invitation: whoever writes with it is treated as a contact with a shared key. Rotate it if it was shared too widely; the old one keeps working for the grace period.</p>
      <Loading loaded={exchange}>
        {(x: any) => <p><code class="uri" aria-label="Current exchange URI">{x.uri}</code> <span class="muted">(made {new Date(x.createdAt).toLocaleString()})</span></p>}
      </Loading>
      <Button kind="danger" disabled={rotate.busy} onClick={() => confirm('Rotate the exchange key?') && rotate.run()}>Rotate</Button>
      {previous && <p role="status" class="ok-text">Rotated. The previous URI is accepted until {new Date(previous).toLocaleString()}.</p>}
      <ErrorNote error={rotate.error} />
    </Card>
  );
}
