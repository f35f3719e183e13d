// The server's extensions: state, capabilities (granted or only requested, with grant and revoke), and
// load or unload. Changing them is for the instance owner; everyone else sees the list.
import { api, listOf } from '../api.js';
import type { Me } from '../app.js';
import { Button, Card, ErrorNote, Loading, Page, Status } from '../components/ui.js';
import { useAction, useGet } from '../hooks.js';
import { SandboxPool } from '../components/sandbox-pool.js';

export function Plugins({ me }: { me: Me }) {
  const plugins = useGet('/api/plugins', 10000);
  const act = useAction(async (path: string, body: unknown) => {
    await api('POST', path, body);
    plugins.reload();
  });
  const owner = me.role === 'owner';
  return (
    <Page title="Plugins">
      <SandboxPool />
      <ErrorNote error={act.error} />
      <Loading loaded={plugins}>
        {(data) => (
          <div class="plugin-list">
            {listOf(data).map((p: any) => {
              const base = `/api/plugins/${encodeURIComponent(p.name)}`;
              const capabilities: string[] = [...new Set<string>([...p.capabilities.requested, ...p.capabilities.granted])].sort();
              return (
                <Card key={p.name} title={p.name}>
                  <p>
                    <Status value={p.state} /> v{p.version} · {p.activation}
                    {p.restarts ? ` · ${p.restarts} restarts` : ''}
                  </p>
                  <p class="muted">{p.description}</p>
                  {p.lastError && <ErrorNote error={`Last error: ${p.lastError}`} />}
                  {capabilities.length > 0 && (
                    <ul class="caps" aria-label={`Capabilities of ${p.name}`}>
                      {capabilities.map((c) => {
                        const granted = p.capabilities.granted.includes(c);
                        return (
                          <li key={c}>
                            <span class={granted ? 'cap cap-on' : 'cap cap-off'}>{c}: {granted ? 'granted' : 'not granted'}</span>
                            {owner && (granted
                              ? <Button kind="plain" disabled={act.busy} onClick={() => act.run(`${base}/revoke`, { capability: c })} aria-label={`Revoke ${c} from ${p.name}`}>Revoke</Button>
                              : <Button kind="plain" disabled={act.busy} onClick={() => act.run(`${base}/grant`, { capability: c })} aria-label={`Grant ${c} to ${p.name}`}>Grant</Button>)}
                          </li>
                        );
                      })}
                    </ul>
                  )}
                  {owner && p.name !== 'dashboard' && (
                    p.state === 'unloaded'
                      ? <Button kind="plain" disabled={act.busy} onClick={() => act.run('/api/plugins/load', { name: p.name })} aria-label={`Load ${p.name}`}>Load</Button>
                      : <Button kind="danger" disabled={act.busy} onClick={() => confirm(`Unload ${p.name}? Its routes stop answering.`) && act.run(`${base}/unload`, {})} aria-label={`Unload ${p.name}`}>Unload</Button>
                  )}
                </Card>
              );
            })}
          </div>
        )}
      </Loading>
    </Page>
  );
}
