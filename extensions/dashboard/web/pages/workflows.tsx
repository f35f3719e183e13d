// Workflows: the list with their runs; one workflow drawn as a graph with the state of each node in the
// chosen run (the newest by default), live from the run's WebSocket stream, its run history, trigger
// and run actions. Creating and editing is workflow-editor.tsx.
import { useEffect } from 'preact/hooks';
import { api, listOf } from '../api.js';
import { WorkflowGraph } from '../components/graph.js';
import { Button, Card, Empty, ErrorNote, link, Loading, Page, Status, Table, when } from '../components/ui.js';
import { useAction, useGet, useSocket } from '../hooks.js';
import { socket } from '../ws.js';

export function Workflows() {
  const workflows = useGet('/api/workflows?limit=200');
  const runs = useGet('/api/workflow-runs?limit=50', 5000);
  const names = new Map(listOf(workflows.data).map((w: any) => [w.id, w.name]));
  return (
    <Page title="Workflows" actions={<a class="btn btn-primary" href="#/workflows/new">New workflow</a>}>
      <Card title="All workflows">
        <Loading loaded={workflows}>
          {(data) => listOf(data).length === 0 ? <Empty>No workflows yet. <a href="#/workflows/new">Draw the first one</a>.</Empty> : (
            <Table caption="Workflows" head={['Name', 'Nodes', 'Enabled', 'Updated']}>
              {listOf(data).map((w: any) => (
                <tr key={w.id}>
                  <td><a href={link('workflows', w.id)}>{w.name}</a></td>
                  <td>{(w.nodes ?? []).length}</td>
                  <td>{w.enabled === false ? 'no' : 'yes'}</td>
                  <td>{when(w.updatedAt)}</td>
                </tr>
              ))}
            </Table>
          )}
        </Loading>
      </Card>
      <Card title="Recent runs">
        <Loading loaded={runs}>
          {(data) => listOf(data).length === 0 ? <Empty>No runs yet.</Empty> : <RunTable runs={listOf(data)} names={names} />}
        </Loading>
      </Card>
    </Page>
  );
}

function RunTable({ runs, names }: { runs: any[]; names: Map<string, string> }) {
  return (
    <Table caption="Workflow runs" head={['Workflow', 'Run', 'Status', 'Started']}>
      {runs.map((r) => (
        <tr key={r.id}>
          <td>{names.get(r.workflowId) ?? r.workflowId?.slice(0, 8)}</td>
          <td><a href={link('workflows', r.workflowId, r.id)}>{r.id.slice(0, 8)}</a></td>
          <td><Status value={r.status} /></td>
          <td>{when(r.startedAt ?? r.createdAt)}</td>
        </tr>
      ))}
    </Table>
  );
}

export function WorkflowDetail({ id, runId }: { id: string; runId?: string }) {
  const workflow = useGet(`/api/workflows/${encodeURIComponent(id)}`);
  const runs = useGet(`/api/workflows/${encodeURIComponent(id)}/runs?limit=50`, 4000);
  const chosen = runId ?? listOf(runs.data)[0]?.id;
  const run = useGet(chosen ? `/api/workflow-runs/${encodeURIComponent(chosen)}` : null, 10000);
  // Each node's state arrives on the run's stream as it changes; the record is read again then, and once
  // subscribed (what changed before is not replayed; the slow poll covers a dropped connection).
  useEffect(() => (chosen ? socket.subscribe('runId', chosen) : undefined), [chosen]);
  useSocket((m) => {
    if (m.runId !== chosen || !(m.type === 'subscribed' || String(m.type).startsWith('workflow_'))) return;
    run.reload();
    if (m.type === 'workflow_run_update') runs.reload();
  });
  const trigger = useAction(async () => {
    const created = await api('POST', `/api/workflows/${encodeURIComponent(id)}/trigger`, {});
    location.hash = link('workflows', id, created.id);
  });
  const act = useAction(async (action: 'pause' | 'resume' | 'cancel') => {
    await api('POST', `/api/workflow-runs/${encodeURIComponent(chosen!)}/action`, { action });
    run.reload();
    runs.reload();
  });
  const states = new Map<string, string>();
  for (const nodeRun of run.data?.nodeRuns ?? []) states.set(nodeRun.nodeId, nodeRun.status);
  return (
    <Loading loaded={workflow}>
      {(w: any) => (
        <Page title={`Workflow ${w.name}`} actions={<><a class="btn btn-plain" href={link('workflows', id, 'edit')}>Edit</a><Button disabled={trigger.busy} onClick={() => trigger.run()}>Run now</Button></>}>
          <ErrorNote error={trigger.error ?? act.error} />
          <Card title={chosen ? `Graph, run ${chosen.slice(0, 8)}` : 'Graph'}>
            {run.data && (
              <p>
                <Status value={run.data.status} />{' '}
                {run.data.status === 'running' && <Button kind="plain" onClick={() => act.run('pause')}>Pause</Button>}
                {run.data.status === 'paused' && <Button kind="plain" onClick={() => act.run('resume')}>Resume</Button>}
                {['running', 'paused'].includes(run.data.status) && <Button kind="danger" onClick={() => act.run('cancel')}>Cancel</Button>}
              </p>
            )}
            <WorkflowGraph nodes={w.nodes ?? []} edges={w.edges ?? []} states={states} />
          </Card>
          <Card title="Run history">
            <Loading loaded={runs}>
              {(data) => listOf(data).length === 0 ? <Empty>Not run yet.</Empty> : <RunTable runs={listOf(data)} names={new Map([[w.id, w.name]])} />}
            </Loading>
          </Card>
        </Page>
      )}
    </Loading>
  );
}
