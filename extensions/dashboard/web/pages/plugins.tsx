// The server's extensions: state, capabilities (granted or only requested, with grant and revoke), what
// each requires and uses (and the graph they make), and load or unload. Changing them is for the instance owner; everyone else sees the list.
import { api, listOf } from '../api.js';
import type { Me } from '../app.js';
import { Button, Card, ErrorNote, Loading, Page, Status } from '../components/ui.js';
import { useAction, useGet } from '../hooks.js';
import { SandboxPool } from '../components/sandbox-pool.js';
import { DependencyLine, PluginGraph } from './plugins-graph.js';

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
          <>
          <PluginGraph plugins={listOf(data)} />
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
                  <DependencyLine plugin={p} />
                  {capabilities.length > 0 && (
                    <ul class="caps" aria-label={`Capabilities of ${p.name}`}>
                      {capabilities.map((c) => {
                        const granted = p.capabilities.granted.includes(c);
                        return (
                          <li key={c}>
                            <span class={granted ? 'cap cap-on' : 'cap cap-off'}>{c}: {granted ? 'granted' : 'not granted'}</span>
                            {owner && (granted
                              ? <Button kind="plain" disabled={act.busy} onClick={() => revokeConfirmed(p, c) && act.run(`${base}/revoke${p.dependents.length > 0 ? '?force=true' : ''}`, { capability: c })} aria-label={`Revoke ${c} from ${p.name}`}>Revoke</Button>
                              : <Button kind="plain" disabled={act.busy} onClick={() => act.run(`${base}/grant`, { capability: c })} aria-label={`Grant ${c} to ${p.name}`}>Grant</Button>)}
                          </li>
                        );
                      })}
                    </ul>
                  )}
                  {owner && p.name !== 'dashboard' && (
                    p.state === 'unloaded'
                      ? <Button kind="plain" disabled={act.busy} onClick={() => act.run('/api/plugins/load', { name: p.name })} aria-label={`Load ${p.name}`}>Load</Button>
                      : <Button kind="danger" disabled={act.busy} onClick={() => confirm(unloadQuestion(p)) && act.run(`${base}/unload${p.dependents.length > 0 ? '?force=true' : ''}`, {})} aria-label={`Unload ${p.name}`}>Unload</Button>
                  )}
                </Card>
              );
            })}
          </div>
          </>
        )}
      </Loading>
    </Page>
  );
}

const unloadQuestion = (p: { name: string; dependents: string[] }) =>
  p.dependents.length > 0
    ? `Unload ${p.name}? ${p.dependents.join(', ')} ${p.dependents.length === 1 ? 'requires' : 'require'} it and will be unloaded too. Their routes stop answering.`
    : `Unload ${p.name}? Its routes stop answering.`;

/** Revoking from an extension others require may break them: asked first. */
const revokeConfirmed = (p: { name: string; dependents: string[] }, capability: string) =>
  p.dependents.length === 0 || confirm(`Revoke ${capability} from ${p.name}? ${p.dependents.join(', ')} ${p.dependents.length === 1 ? 'requires' : 'require'} it.`);
