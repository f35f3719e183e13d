// The editor's side panel: the selected node (its id, name, type and the config fields its type takes,
// plus a keyboard way to connect it to another node) or the selected edge (its branch), with the API's
// problems that name it.
import { useState } from 'preact/hooks';
import { Button, Field, Select, TextArea } from '../components/ui.js';
import { BRANCHES, NODE_TYPES, type ConfigField, type Flow, type FlowNode } from '../workflow-model.js';
import type { Selection } from '../components/flow-canvas.js';

export interface Pickers {
  agent: Array<[string, string]>;
  council: Array<[string, string]>;
  project: Array<[string, string]>;
}

interface Props {
  flow: Flow;
  selected: Selection;
  problems: Array<{ text: string; nodes: string[] }>;
  pickers: Pickers;
  onNode(id: string, patch: Partial<FlowNode>): void;
  onRename(id: string, next: string): void;
  onConnect(from: string, to: string, branch?: string): void;
  onBranch(index: number, branch: string | undefined): void;
  onDelete(selection: Selection): void;
}

/** A config value as the field shows it, and back. */
const shown = (value: unknown, field: ConfigField) => (value === undefined ? '' : field.kind === 'json' && typeof value !== 'string' ? JSON.stringify(value, null, 2) : String(value));
function parsed(text: string, field: ConfigField): unknown {
  if (text.trim() === '') return undefined;
  if (field.kind === 'number') return Number(text);
  if (field.kind === 'json') {
    try {
      return JSON.parse(text);
    } catch {
      return text;
    }
  }
  return text;
}

function ConfigInput({ field, value, set, pickers }: { field: ConfigField; value: unknown; set: (v: unknown) => void; pickers: Pickers }) {
  const label = field.required ? field.label : `${field.label} (optional)`;
  const text = shown(value, field);
  const onInput = (e: any) => set(parsed(e.currentTarget.value, field));
  if (field.kind === 'agent' || field.kind === 'council' || field.kind === 'project') {
    const options = pickers[field.kind];
    const known = options.some(([id]) => id === text);
    return <Select label={label} value={text} onChange={onInput} options={[['', '— choose —'], ...(known || !text ? [] : [[text, text] as [string, string]]), ...options]} />;
  }
  if (field.kind === 'long' || field.kind === 'json') return <TextArea label={label} rows={field.kind === 'json' ? 4 : 3} value={text} onInput={onInput} spellcheck={field.kind !== 'json'} />;
  if (field.kind === 'number') return <Field label={label} type="number" value={text} onInput={onInput} />;
  return <Field label={label} value={text} onInput={onInput} spellcheck={false} />;
}

function NodePanel({ node, flow, pickers, onNode, onRename, onConnect, onDelete }: { node: FlowNode } & Omit<Props, 'selected' | 'problems' | 'onBranch'>) {
  const [target, setTarget] = useState('');
  const [id, setId] = useState(node.id);
  const type = NODE_TYPES[node.type];
  const others = flow.nodes.filter((n) => n.id !== node.id && n.type !== 'start');
  const branches = BRANCHES[node.type];
  const [branch, setBranch] = useState(branches?.[0] ?? '');
  const config = node.config ?? {};
  return (
    <>
      <h3>Node {node.id}</h3>
      <Field label="Id" value={id} hint="Letters, digits and _; templates name it as nodes.<id>" onInput={(e) => setId(e.currentTarget.value)} onBlur={() => id !== node.id && /^[A-Za-z]\w*$/.test(id) && !flow.nodes.some((n) => n.id === id) ? onRename(node.id, id) : setId(node.id)} />
      <Field label="Name (optional)" value={node.name ?? ''} onInput={(e) => onNode(node.id, { name: e.currentTarget.value || undefined })} />
      <Select label="Type" value={node.type} options={Object.entries(NODE_TYPES).map(([t, d]): [string, string] => [t, d.label])} onChange={(e) => onNode(node.id, { type: e.currentTarget.value, config: {} })} />
      {type?.fields.map((field) => (
        <ConfigInput key={`${node.id}-${field.key}`} field={field} value={config[field.key]} pickers={pickers} set={(v) => onNode(node.id, { config: { ...config, [field.key]: v } })} />
      ))}
      {node.type !== 'end' && others.length > 0 && (
        <fieldset class="connect">
          <legend>Connect to</legend>
          <Select label="Next node" value={target} options={[['', '— choose —'], ...others.map((n): [string, string] => [n.id, n.name || n.id])]} onChange={(e) => setTarget(e.currentTarget.value)} />
          {branches && <Select label="Branch" value={branch} options={branches.map((b): [string, string] => [b, b])} onChange={(e) => setBranch(e.currentTarget.value)} />}
          <Button kind="plain" disabled={!target} onClick={() => onConnect(node.id, target, branches ? branch : undefined)}>Add edge</Button>
        </fieldset>
      )}
      {node.type !== 'start' && <Button kind="danger" onClick={() => onDelete({ kind: 'node', id: node.id })}>Delete node {node.id}</Button>}
    </>
  );
}

export function Inspector(props: Props) {
  const { flow, selected, problems } = props;
  const about = (id: string) => problems.filter((p) => p.nodes.includes(id));
  if (selected?.kind === 'node') {
    const node = flow.nodes.find((n) => n.id === selected.id);
    if (!node) return <p class="muted">Select a node or an edge to configure it.</p>;
    const own = about(node.id);
    return (
      <div class="inspector">
        <NodePanel key={node.id} node={node} {...props} />
        {own.length > 0 && <ul class="problems" aria-label={`Problems of ${node.id}`}>{own.map((p) => <li key={p.text}>{p.text}</li>)}</ul>}
      </div>
    );
  }
  if (selected?.kind === 'edge') {
    const edge = flow.edges[selected.index];
    if (!edge) return null;
    const source = flow.nodes.find((n) => n.id === edge.from);
    const branches = BRANCHES[source?.type ?? ''];
    return (
      <div class="inspector">
        <h3>Edge {edge.from} → {edge.to}</h3>
        {branches ? (
          <Select label="Branch" value={edge.branch ?? ''} options={[['', '— none —'], ...branches.map((b): [string, string] => [b, b])]} onChange={(e) => props.onBranch(selected.index, e.currentTarget.value || undefined)} />
        ) : <p class="muted">A {source?.type ?? ''} node's edges take no branch.</p>}
        <Button kind="danger" onClick={() => props.onDelete(selected)}>Delete edge</Button>
      </div>
    );
  }
  return <p class="muted">Select a node or an edge to configure it. Drag a node to move it; drag from its round handle onto another node to connect them.</p>;
}
