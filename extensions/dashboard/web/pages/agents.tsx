// Agents: the list and a form to create one; one agent's settings, persona, skills, balance and cap.
import { useState } from 'preact/hooks';
import { api, listOf } from '../api.js';
import type { Me } from '../app.js';
import { Button, Card, Empty, ErrorNote, Field, link, Loading, Page, Select, Table, TextArea } from '../components/ui.js';
import { useAction, useGet } from '../hooks.js';
import { AgentReputation } from './agent-reputation.js';
import { AgentSandbox } from './agent-sandbox.js';
import { AgentMoney } from './agent-money.js';
import { Persona, Skills } from './agent-profile.js';

export const PERMISSION_MODES: Array<[string, string]> = [
  ['default', 'Ask before writes and commands'],
  ['acceptEdits', 'Accept file edits, ask for commands'],
  ['full-auto', 'Never ask'],
  ['plan', 'Read only (plan)'],
];
const PROVIDERS: Array<[string, string]> = [['anthropic', 'Anthropic'], ['ollama', 'Ollama (local)']];

export function Agents() {
  const agents = useGet('/api/agents?limit=200');
  return (
    <Page title="Agents">
      <CreateAgent onCreated={agents.reload} />
      <Card title="All agents">
        <Loading loaded={agents}>
          {(data) => {
            const list = listOf(data);
            if (list.length === 0) return <Empty>No agents yet.</Empty>;
            return (
              <Table caption="Agents" head={['Name', 'Model', 'Permission mode', 'Wallet']}>
                {list.map((a: any) => (
                  <tr key={a.id}>
                    <td><a href={link('agents', a.id)}>{a.name}</a></td>
                    <td>{a.provider} / {a.model}</td>
                    <td>{a.permissionMode}</td>
                    <td><code>{a.wallet?.slice(0, 14)}…</code></td>
                  </tr>
                ))}
              </Table>
            );
          }}
        </Loading>
      </Card>
    </Page>
  );
}

function CreateAgent({ onCreated }: { onCreated: () => void }) {
  const [name, setName] = useState('');
  const [provider, setProvider] = useState('anthropic');
  const [model, setModel] = useState('');
  const [permissionMode, setPermissionMode] = useState('default');
  const create = useAction(async () => {
    await api('POST', '/api/agents', { name: name.trim(), provider, permissionMode, ...(model.trim() ? { model: model.trim() } : {}) });
    setName('');
    setModel('');
    onCreated();
  });
  return (
    <Card title="New agent">
      <form class="grid" onSubmit={(e) => { e.preventDefault(); void create.run(); }}>
        <Field label="Name" required maxLength={100} value={name} onInput={(e) => setName(e.currentTarget.value)} />
        <Select label="Provider" value={provider} onChange={(e) => setProvider(e.currentTarget.value)} options={PROVIDERS} />
        <Field label="Model (optional)" hint="Empty: the provider's default model" value={model} onInput={(e) => setModel(e.currentTarget.value)} />
        <Select label="Permission mode" value={permissionMode} onChange={(e) => setPermissionMode(e.currentTarget.value)} options={PERMISSION_MODES} />
        <ErrorNote error={create.error} />
        <div><Button type="submit" disabled={create.busy || !name.trim()}>Create agent</Button></div>
      </form>
    </Card>
  );
}

export function AgentDetail({ id, me }: { id: string; me: Me }) {
  const agent = useGet(`/api/agents/${encodeURIComponent(id)}`);
  return (
    <Loading loaded={agent}>
      {(a: any) => (
        <Page title={`Agent ${a.name}`} actions={<a class="btn btn-plain" href={link('chat', a.id)}>Chat with {a.name}</a>}>
          <EditAgent agent={a} onSaved={agent.reload} />
          <Persona agentId={a.id} />
          <Skills agentId={a.id} />
          <AgentMoney agentId={a.id} canFund={me.role !== 'viewer'} />
          <AgentReputation agentId={a.id} me={me} />
          <AgentSandbox agentId={a.id} canEdit={me.role !== 'viewer'} />
        </Page>
      )}
    </Loading>
  );
}

function EditAgent({ agent, onSaved }: { agent: any; onSaved: () => void }) {
  const [form, setForm] = useState({ name: agent.name, description: agent.description ?? '', model: agent.model, systemPrompt: agent.systemPrompt ?? '', permissionMode: agent.permissionMode });
  const [saved, setSaved] = useState(false);
  const save = useAction(async () => {
    await api('PUT', `/api/agents/${encodeURIComponent(agent.id)}`, form);
    setSaved(true);
    onSaved();
  });
  const set = (field: keyof typeof form) => (e: { currentTarget: { value: string } }) => {
    setSaved(false);
    setForm({ ...form, [field]: e.currentTarget.value });
  };
  return (
    <Card title="Settings">
      <form class="grid" onSubmit={(e) => { e.preventDefault(); void save.run(); }}>
        <Field label="Name" required value={form.name} onInput={set('name')} />
        <Field label="Model" required value={form.model} onInput={set('model')} />
        <Select label="Permission mode" value={form.permissionMode} onChange={set('permissionMode')} options={PERMISSION_MODES} />
        <Field label="Description" value={form.description} onInput={set('description')} />
        <TextArea label="System prompt" rows={4} value={form.systemPrompt} onInput={set('systemPrompt')} />
        <ErrorNote error={save.error} />
        <div>
          <Button type="submit" disabled={save.busy}>Save</Button>
          {saved && <span role="status" class="ok-text"> Saved.</span>}
        </div>
      </form>
    </Card>
  );
}
