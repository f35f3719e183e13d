// The sessions of the tenant, newest first, and a form to start one.
import { useState } from 'preact/hooks';
import { api, listOf } from '../api.js';
import { Button, Card, credits, Empty, ErrorNote, Loading, Page, Select, sessionState, Status, Table, TextArea, when, link, Field } from '../components/ui.js';
import { useAction, useGet } from '../hooks.js';

export function Sessions() {
  const sessions = useGet('/api/sessions?limit=100', 5000);
  const agents = useGet('/api/agents?limit=200');
  const names = new Map(listOf(agents.data).map((a: any) => [a.id, a.name]));
  return (
    <Page title="Sessions">
      <StartSession />
      <Card title="All sessions">
        <Loading loaded={sessions}>
          {(data) => {
            const rows = listOf(data);
            if (rows.length === 0) return <Empty>No sessions yet.</Empty>;
            return (
              <Table caption="Sessions" head={['Name', 'Agent', 'Source', 'Status', 'Cost', 'Started']}>
                {rows.map((s: any) => (
                  <tr key={s.id}>
                    <td><a href={link('sessions', s.id)}>{s.name || s.id.slice(0, 8)}</a></td>
                    <td>{names.get(s.agentId) ?? s.agentId?.slice(0, 8)}</td>
                    <td>{s.source}</td>
                    <td><Status value={sessionState(s)} /></td>
                    <td class="cost">{credits(s.cost)}</td>
                    <td>{when(s.startedAt ?? s.createdAt)}</td>
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

function StartSession() {
  const agents = useGet('/api/agents?limit=200');
  const projects = useGet('/api/projects?limit=200');
  const [agentId, setAgentId] = useState('');
  const [projectId, setProjectId] = useState('');
  const [prompt, setPrompt] = useState('');
  const [name, setName] = useState('');
  const agentList = listOf(agents.data);
  // Until one is picked, the first agent is the one shown and the one used.
  const agent = agentId || agentList[0]?.id || '';
  const start = useAction(async () => {
    const session = await api('POST', '/api/sessions', {
      agentId: agent,
      ...(projectId ? { projectId } : {}),
      ...(prompt.trim() ? { initialPrompt: prompt } : {}),
      ...(name.trim() ? { name: name.trim() } : {}),
    });
    location.hash = link('sessions', session.id);
  });
  if (agents.data && agentList.length === 0) {
    return <Card title="Start a session"><Empty>Create an agent first, on the <a href="#/agents">agents</a> page.</Empty></Card>;
  }
  return (
    <Card title="Start a session">
      <form class="grid" onSubmit={(e) => { e.preventDefault(); void start.run(); }}>
        <Select label="Agent" value={agent} onChange={(e) => setAgentId(e.currentTarget.value)} options={agentList.map((a: any) => [a.id, a.name])} />
        <Select label="Project" value={projectId} onChange={(e) => setProjectId(e.currentTarget.value)} options={[['', 'None'], ...listOf(projects.data).map((p: any): [string, string] => [p.id, p.name])]} />
        <Field label="Name (optional)" value={name} onInput={(e) => setName(e.currentTarget.value)} />
        <TextArea label="First message" rows={3} value={prompt} onInput={(e) => setPrompt(e.currentTarget.value)} />
        <ErrorNote error={start.error} />
        <div><Button type="submit" disabled={start.busy || agentList.length === 0}>Start session</Button></div>
      </form>
    </Card>
  );
}
