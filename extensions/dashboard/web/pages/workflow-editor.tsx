// The workflow editor: a name, a palette that adds nodes, the canvas (drag, connect, select) and the
// inspector for the selection. Saving sends the graph to the workflows API, which checks it whole; its
// refusal is listed, and the nodes it names are marked on the canvas.
import { useState } from 'preact/hooks';
import { api, ApiError, listOf } from '../api.js';
import { FlowCanvas, type Selection } from '../components/flow-canvas.js';
import { layout } from '../components/graph-layout.js';
import { Button, Card, ErrorNote, Field, link, Loading, Page, Select } from '../components/ui.js';
import { useGet } from '../hooks.js';
import { connect, freshId, NODE_H, NODE_TYPES, problemsOf, removeNode, renameNode, toApi, updateNode, type Flow } from '../workflow-model.js';
import { Inspector, type Pickers } from './workflow-inspector.js';

const NEW_FLOW: Flow = {
  nodes: [{ id: 'start', type: 'start', position: { x: 40, y: 60 } }, { id: 'end', type: 'end', position: { x: 340, y: 60 } }],
  edges: [{ from: 'start', to: 'end' }],
};

/** A stored workflow as the editor holds it: nodes without a saved position laid out in columns. */
function flowOf(w: any): Flow {
  const placed = layout(w.nodes ?? [], w.edges ?? []);
  return {
    nodes: (w.nodes ?? []).map((n: any) => ({ ...n, position: n.position ?? { x: placed.get(n.id)!.x * 1.2 + 30, y: placed.get(n.id)!.y * 1.4 + 30 } })),
    edges: w.edges ?? [],
  };
}

export function WorkflowEditorPage({ id }: { id?: string }) {
  const existing = useGet(id ? `/api/workflows/${encodeURIComponent(id)}` : null);
  if (!id) return <WorkflowEditor />;
  return <Loading loaded={existing}>{(w) => <WorkflowEditor workflow={w} />}</Loading>;
}

const pairs = (body: unknown): Array<[string, string]> => listOf(body).map((r: any) => [r.id, r.name ?? r.id]);

function WorkflowEditor({ workflow }: { workflow?: any }) {
  const [name, setName] = useState<string>(workflow?.name ?? '');
  const [flow, setFlow] = useState<Flow>(() => (workflow ? flowOf(workflow) : NEW_FLOW));
  const [selected, setSelected] = useState<Selection>(null);
  const [adding, setAdding] = useState('agent_session');
  const [refusal, setRefusal] = useState<{ message: string; problems?: string[] } | null>(null);
  const [busy, setBusy] = useState(false);
  const agents = useGet('/api/agents?limit=200');
  const councils = useGet('/api/councils?limit=200');
  const projects = useGet('/api/projects?limit=200');
  const pickers: Pickers = { agent: pairs(agents.data), council: pairs(councils.data), project: pairs(projects.data) };
  const problems = refusal ? problemsOf(refusal) : [];
  const faulty = new Set(problems.flatMap((p) => p.nodes));

  const add = () => {
    const id = freshId(flow, adding);
    const lowest = Math.max(0, ...flow.nodes.map((n) => n.position.y + NODE_H));
    setFlow({ ...flow, nodes: [...flow.nodes, { id, type: adding, config: {}, position: { x: 40 + (flow.nodes.length % 4) * 60, y: lowest + 40 } }] });
    setSelected({ kind: 'node', id });
  };
  const remove = (s: Selection) => {
    if (s?.kind === 'node') {
      if (flow.nodes.find((n) => n.id === s.id)?.type === 'start') return;
      setFlow(removeNode(flow, s.id));
    } else if (s?.kind === 'edge') setFlow({ ...flow, edges: flow.edges.filter((_, i) => i !== s.index) });
    setSelected(null);
  };
  const save = async (event: Event) => {
    event.preventDefault();
    setBusy(true);
    setRefusal(null);
    try {
      const body = { name: name.trim(), ...toApi(flow) };
      const saved = workflow ? await api('PUT', `/api/workflows/${encodeURIComponent(workflow.id)}`, body) : await api('POST', '/api/workflows', body);
      location.hash = link('workflows', saved.id);
    } catch (err) {
      const problems = err instanceof ApiError ? (err.details as { problems?: unknown } | undefined)?.problems : undefined;
      setRefusal({ message: err instanceof Error ? err.message : String(err), problems: Array.isArray(problems) ? problems.map(String) : undefined });
    } finally {
      setBusy(false);
    }
  };

  return (
    <Page title={workflow ? `Edit workflow ${workflow.name}` : 'New workflow'}>
      <form onSubmit={save} noValidate>
        <div class="inline">
          <Field label="Workflow name" value={name} onInput={(e) => setName(e.currentTarget.value)} />
          <Select label="Node type" value={adding} options={Object.entries(NODE_TYPES).filter(([t]) => t !== 'start').map(([t, d]): [string, string] => [t, d.label])} onChange={(e) => setAdding(e.currentTarget.value)} />
          <Button kind="plain" onClick={add}>Add node</Button>
          <button type="submit" class="btn btn-primary" disabled={busy}>{workflow ? 'Save workflow' : 'Create workflow'}</button>
          <a class="btn btn-plain" href={workflow ? link('workflows', workflow.id) : '#/workflows'}>Cancel</a>
        </div>
        {refusal && (
          <div role="alert">
            {refusal.problems ? (
              <>
                <p class="note error">The server refused the workflow:</p>
                <ul class="problems" aria-label="Problems">{problems.map((p) => <li key={p.text}>{p.text}</li>)}</ul>
              </>
            ) : <ErrorNote error={refusal.message} />}
          </div>
        )}
        <div class="editor">
          <Card title="Graph">
            <FlowCanvas
              flow={flow}
              selected={selected}
              faulty={faulty}
              onSelect={setSelected}
              onMove={(id, x, y) => setFlow((f) => updateNode(f, id, { position: { x, y } }))}
              onConnect={(from, to) => setFlow((f) => connect(f, from, to))}
              onDelete={remove}
            />
          </Card>
          <Card title="Selected">
            <Inspector
              flow={flow}
              selected={selected}
              problems={problems}
              pickers={pickers}
              onNode={(id, patch) => setFlow((f) => updateNode(f, id, patch))}
              onRename={(id, next) => {
                setFlow((f) => renameNode(f, id, next));
                setSelected({ kind: 'node', id: next });
              }}
              onConnect={(from, to, branch) => setFlow((f) => connect(f, from, to, branch))}
              onBranch={(index, branch) => setFlow((f) => ({ ...f, edges: f.edges.map((e, i) => (i === index ? { from: e.from, to: e.to, ...(branch ? { branch } : {}) } : e)) }))}
              onDelete={remove}
            />
          </Card>
        </div>
      </form>
    </Page>
  );
}
