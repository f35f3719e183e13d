// Councils: create one from agents, launch it with a prompt, and follow a launch through its stages.
import { useState } from 'preact/hooks';
import { api, listOf } from '../api.js';
import { Button, Card, Empty, ErrorNote, Field, link, Loading, Page, Status, Table, TextArea, when } from '../components/ui.js';
import { useAction, useGet } from '../hooks.js';
export { CouncilLaunch } from './council-launch.js';

export function Councils() {
  const councils = useGet('/api/councils?limit=200');
  const launches = useGet('/api/council-launches?limit=50', 5000);
  const agents = useGet('/api/agents?limit=200');
  const names = new Map(listOf(councils.data).map((c: any) => [c.id, c.name]));
  return (
    <Page title="Councils">
      <CreateCouncil agents={listOf(agents.data)} onCreated={councils.reload} />
      <Card title="All councils">
        <Loading loaded={councils}>
          {(data) => listOf(data).length === 0 ? <Empty>No councils yet.</Empty> : (
            <Table caption="Councils" head={['Name', 'Members', 'Rounds', 'Launch']}>
              {listOf(data).map((c: any) => <CouncilRow key={c.id} council={c} />)}
            </Table>
          )}
        </Loading>
      </Card>
      <Card title="Launches">
        <Loading loaded={launches}>
          {(data) => listOf(data).length === 0 ? <Empty>No launches yet.</Empty> : (
            <Table caption="Council launches" head={['Council', 'Prompt', 'Stage', 'Started']}>
              {listOf(data).map((l: any) => (
                <tr key={l.id}>
                  <td>{names.get(l.councilId) ?? l.councilId?.slice(0, 8)}</td>
                  <td><a href={link('councils', 'launch', l.id)}>{String(l.prompt ?? '').slice(0, 80) || l.id.slice(0, 8)}</a></td>
                  <td><Status value={l.stage} /></td>
                  <td>{when(l.createdAt)}</td>
                </tr>
              ))}
            </Table>
          )}
        </Loading>
      </Card>
    </Page>
  );
}

function CouncilRow({ council }: { council: any }) {
  const [prompt, setPrompt] = useState('');
  const launch = useAction(async () => {
    const created = await api('POST', `/api/councils/${encodeURIComponent(council.id)}/launch`, { prompt });
    location.hash = link('councils', 'launch', created.id);
  });
  return (
    <tr>
      <td>{council.name}</td>
      <td>{(council.members ?? []).length}</td>
      <td>{council.rounds}</td>
      <td>
        <form class="inline" onSubmit={(e) => { e.preventDefault(); void launch.run(); }}>
          <Field label={`Prompt for ${council.name}`} required value={prompt} onInput={(e) => setPrompt(e.currentTarget.value)} />
          <Button type="submit" disabled={launch.busy || !prompt.trim()}>Launch</Button>
        </form>
        <ErrorNote error={launch.error} />
      </td>
    </tr>
  );
}

function CreateCouncil({ agents, onCreated }: { agents: any[]; onCreated: () => void }) {
  const [name, setName] = useState('');
  const [members, setMembers] = useState<string[]>([]);
  const [rounds, setRounds] = useState('1');
  const [description, setDescription] = useState('');
  const create = useAction(async () => {
    await api('POST', '/api/councils', { name: name.trim(), members, rounds: Number(rounds), ...(description.trim() ? { description } : {}) });
    setName('');
    setMembers([]);
    onCreated();
  });
  if (agents.length === 0) return <Card title="New council"><Empty>Create agents first, on the <a href="#/agents">agents</a> page.</Empty></Card>;
  return (
    <Card title="New council">
      <form class="grid" onSubmit={(e) => { e.preventDefault(); void create.run(); }}>
        <Field label="Name" required value={name} onInput={(e) => setName(e.currentTarget.value)} />
        <Field label="Discussion rounds" type="number" min="0" max="5" value={rounds} onInput={(e) => setRounds(e.currentTarget.value)} />
        <fieldset>
          <legend>Members</legend>
          {agents.map((a) => (
            <label key={a.id} class="check">
              <input type="checkbox" checked={members.includes(a.id)} onChange={() => setMembers(members.includes(a.id) ? members.filter((m) => m !== a.id) : [...members, a.id])} /> {a.name}
            </label>
          ))}
        </fieldset>
        <TextArea label="Description" rows={2} value={description} onInput={(e) => setDescription(e.currentTarget.value)} />
        <ErrorNote error={create.error} />
        <div><Button type="submit" disabled={create.busy || !name.trim() || members.length === 0}>Create council</Button></div>
      </form>
    </Card>
  );
}
