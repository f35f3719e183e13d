// The sandbox pool of this instance (GET /api/sandbox/stats): prepared sandboxes ready, warm and cold
// assignments, and whether bubblewrap works here at all.
import { useGet } from '../hooks.js';
import { Card, ErrorNote } from './ui.js';

export function SandboxPool() {
  const stats = useGet('/api/sandbox/stats', 10000);
  const s = stats.data;
  return (
    <Card title="Sandbox pool">
      {stats.error && <ErrorNote error={stats.error.message} />}
      {s && (
        <>
          <p class={s.available ? 'ok-text' : 'bad-text'}>{s.available ? `Bubblewrap works here (${s.bwrap}).` : `No sandbox on this instance: ${s.error ?? 'bubblewrap is not available'}.`}</p>
          <div class="stats">
            <p><span>Ready / target</span><strong>{s.ready} / {s.target}</strong></p>
            <p><span>Preparing</span><strong>{s.preparing}</strong></p>
            <p><span>Prepared in all</span><strong>{s.prepared}</strong></p>
            <p><span>Warm assigns</span><strong>{s.warmAssigns}</strong></p>
            <p><span>Cold assigns</span><strong>{s.coldAssigns}</strong></p>
            <p><span>Last prepare</span><strong>{s.lastPrepareMs === null || s.lastPrepareMs === undefined ? '—' : `${s.lastPrepareMs} ms`}</strong></p>
            <p><span>Held by your sessions</span><strong>{s.assigned}</strong></p>
          </div>
        </>
      )}
    </Card>
  );
}
