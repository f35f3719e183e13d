// An agent's persona (archetype and traits) and its skill bundles.
import { useEffect, useState } from 'preact/hooks';
import { api, listOf } from '../api.js';
import { Button, Card, Empty, ErrorNote, Field, Loading, Select } from '../components/ui.js';
import { useAction, useGet } from '../hooks.js';

const ARCHETYPES = ['analyst', 'architect', 'builder', 'reviewer', 'researcher', 'mentor', 'operator', 'diplomat'];

export function Persona({ agentId }: { agentId: string }) {
  const path = `/api/agents/${encodeURIComponent(agentId)}/persona`;
  const persona = useGet(path);
  const [archetype, setArchetype] = useState('analyst');
  const [traits, setTraits] = useState('');
  useEffect(() => {
    if (persona.data) {
      setArchetype(persona.data.archetype);
      setTraits((persona.data.traits ?? []).join(', '));
    }
  }, [persona.data]);
  const save = useAction(async () => {
    await api('PUT', path, { archetype, traits: traits.split(',').map((t) => t.trim()).filter(Boolean) });
    persona.reload();
  });
  const remove = useAction(async () => {
    await api('DELETE', path);
    setTraits('');
    persona.reload();
  });
  const missing = persona.error?.status === 404;
  return (
    <Card title="Persona">
      {persona.error && !missing && <ErrorNote error={persona.error.message} />}
      {missing && <p class="empty">No persona yet.</p>}
      <form class="grid" onSubmit={(e) => { e.preventDefault(); void save.run(); }}>
        <Select label="Archetype" value={archetype} onChange={(e) => setArchetype(e.currentTarget.value)} options={ARCHETYPES.map((a) => [a, a])} />
        <Field label="Traits" hint="Comma separated, e.g. skeptical, concise" value={traits} onInput={(e) => setTraits(e.currentTarget.value)} />
        <ErrorNote error={save.error ?? remove.error} />
        <div>
          <Button type="submit" disabled={save.busy}>Save persona</Button>{' '}
          {!missing && persona.data && <Button kind="danger" disabled={remove.busy} onClick={() => remove.run()}>Remove persona</Button>}
        </div>
      </form>
    </Card>
  );
}

export function Skills({ agentId }: { agentId: string }) {
  const path = `/api/agents/${encodeURIComponent(agentId)}/skills`;
  const assigned = useGet(path);
  const bundles = useGet('/api/skill-bundles?limit=200');
  const presets = useGet('/api/skill-bundles/presets');
  const [chosen, setChosen] = useState<string[] | null>(null);
  const current = chosen ?? (assigned.data ? (assigned.data.bundleIds ?? listOf(assigned.data).map((b: any) => b.id ?? b)) : []);
  const save = useAction(async () => {
    await api('PUT', path, { bundleIds: current });
    setChosen(null);
    assigned.reload();
  });
  const clone = useAction(async (name: string) => {
    await api('POST', `/api/skill-bundles/presets/${encodeURIComponent(name)}/clone`, {});
    bundles.reload();
  });
  const toggle = (id: string) => setChosen(current.includes(id) ? current.filter((x: string) => x !== id) : [...current, id]);
  return (
    <Card title="Skills">
      <Loading loaded={bundles}>
        {(data) => {
          const list = listOf(data);
          return (
            <form onSubmit={(e) => { e.preventDefault(); void save.run(); }}>
              {list.length === 0 ? <Empty>No skill bundles yet: clone a preset below.</Empty> : (
                <fieldset>
                  <legend>Bundles assigned to this agent</legend>
                  {list.map((b: any) => (
                    <label key={b.id} class="check">
                      <input type="checkbox" checked={current.includes(b.id)} onChange={() => toggle(b.id)} /> {b.name}
                      <small> {(b.tools ?? []).join(', ')}</small>
                    </label>
                  ))}
                </fieldset>
              )}
              <ErrorNote error={save.error ?? clone.error} />
              {list.length > 0 && <Button type="submit" disabled={save.busy}>Save skills</Button>}
            </form>
          );
        }}
      </Loading>
      {presets.data && (
        <p class="presets">
          Presets:{' '}
          {listOf(presets.data).map((p: any) => (
            <Button key={p.name} kind="plain" disabled={clone.busy} onClick={() => clone.run(p.name)}>Clone {p.name}</Button>
          ))}
        </p>
      )}
    </Card>
  );
}
