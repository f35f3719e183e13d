// The agent's sandbox policy (what its sessions' commands may do: network, writable folders, CPU,
// memory, processes, wall time). Without a policy of its own the agent gets the defaults; Reset
// removes its own.
import { useEffect, useState } from 'preact/hooks';
import { api } from '../api.js';
import { Button, Card, ErrorNote, Field, Loading } from '../components/ui.js';
import { useAction, useGet } from '../hooks.js';

interface Policy {
  network: boolean;
  writablePaths: string[];
  cpuSeconds: number;
  memoryMb: number;
  maxProcesses: number;
  wallTimeSeconds: number;
}

const NUMBERS: Array<[keyof Policy, string, number, number]> = [
  ['cpuSeconds', 'CPU seconds per process', 1, 86400],
  ['memoryMb', 'Memory (MB)', 16, 65536],
  ['maxProcesses', 'Processes', 1, 4096],
  ['wallTimeSeconds', 'Wall time (seconds)', 1, 86400],
];

export function AgentSandbox({ agentId, canEdit }: { agentId: string; canEdit: boolean }) {
  const path = `/api/sandbox/policies/${encodeURIComponent(agentId)}`;
  const all = useGet('/api/sandbox/policies');
  const own = useGet<Policy>(path);
  const [form, setForm] = useState<Record<string, string> | null>(null);
  const [saved, setSaved] = useState<string | null>(null);
  const hasOwn = own.data !== undefined;
  const shown: Policy | undefined = own.data ?? (own.error?.status === 404 ? all.data?.defaults : undefined);
  useEffect(() => {
    if (shown) setForm({ network: String(shown.network), writablePaths: shown.writablePaths.join('\n'), ...Object.fromEntries(NUMBERS.map(([k]) => [k, String(shown[k])])) });
  }, [shown === undefined, hasOwn, own.data]);
  const act = useAction(async (method: 'PUT' | 'DELETE') => {
    setSaved(null);
    if (method === 'DELETE') await api('DELETE', path);
    else {
      await api('PUT', path, {
        network: form!.network === 'true',
        writablePaths: form!.writablePaths.split('\n').map((p) => p.trim()).filter(Boolean),
        ...Object.fromEntries(NUMBERS.map(([k]) => [k, Number(form![k])])),
      });
    }
    setSaved(method === 'DELETE' ? 'Back to the defaults.' : 'Policy saved.');
    own.reload();
  });
  const set = (field: string) => (e: { currentTarget: { value: string } }) => setForm({ ...form!, [field]: e.currentTarget.value });
  return (
    <Card title="Sandbox">
      <Loading loaded={all}>
        {() => !form ? <ErrorNote error={own.error?.status === 404 ? null : own.error?.message} /> : (
          <form class="grid" onSubmit={(e) => { e.preventDefault(); void act.run('PUT'); }}>
            <p class="muted wide" role="status">{hasOwn ? 'This agent has a policy of its own.' : 'This agent gets the defaults.'}</p>
            <div class="field">
              <label class="check"><input type="checkbox" disabled={!canEdit} checked={form.network === 'true'} onChange={(e) => setForm({ ...form, network: String(e.currentTarget.checked) })} /> Network access</label>
            </div>
            {NUMBERS.map(([k, label, min, max]) => <Field key={k} label={label} type="number" min={min} max={max} step={1} required disabled={!canEdit} value={form[k]} onInput={set(k)} />)}
            <div class="field">
              <label for={`writable-${agentId}`}>Writable folders (one a line, relative)</label>
              <textarea id={`writable-${agentId}`} rows={3} disabled={!canEdit} value={form.writablePaths} onInput={set('writablePaths')} />
            </div>
            {canEdit && (
              <div class="inline">
                <Button type="submit" disabled={act.busy}>Save sandbox policy</Button>
                {hasOwn && <Button kind="plain" disabled={act.busy} onClick={() => act.run('DELETE')}>Reset to the defaults</Button>}
                {saved && <span role="status" class="ok-text">{saved}</span>}
              </div>
            )}
            <ErrorNote error={act.error} />
          </form>
        )}
      </Loading>
    </Card>
  );
}
