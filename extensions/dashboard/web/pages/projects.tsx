// Projects: the list, and a form to create one whose folder is picked in the directory browser
// (GET /api/browse-dirs, which shows only the folders the caller may use).
import { useState } from 'preact/hooks';
import { api, listOf, q } from '../api.js';
import { Button, Card, Empty, ErrorNote, Field, Loading, Page, Table, when } from '../components/ui.js';
import { useAction, useGet } from '../hooks.js';

export function Projects() {
  const projects = useGet('/api/projects?limit=200');
  const remove = useAction(async (id: string) => {
    await api('DELETE', `/api/projects/${encodeURIComponent(id)}`);
    projects.reload();
  });
  return (
    <Page title="Projects">
      <CreateProject onCreated={projects.reload} />
      <Card title="All projects">
        <ErrorNote error={remove.error} />
        <Loading loaded={projects}>
          {(data) => {
            const list = listOf(data);
            if (list.length === 0) return <Empty>No projects yet.</Empty>;
            return (
              <Table caption="Projects" head={['Name', 'Folder', 'Created', '']}>
                {list.map((p: any) => (
                  <tr key={p.id}>
                    <td>{p.name}</td>
                    <td><code>{p.workingDir}</code></td>
                    <td>{when(p.createdAt)}</td>
                    <td><Button kind="plain" onClick={() => confirm(`Delete project ${p.name}?`) && remove.run(p.id)} aria-label={`Delete project ${p.name}`}>Delete</Button></td>
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

function CreateProject({ onCreated }: { onCreated: () => void }) {
  const [name, setName] = useState('');
  const [workingDir, setWorkingDir] = useState('');
  const create = useAction(async () => {
    await api('POST', '/api/projects', { name: name.trim(), workingDir });
    setName('');
    setWorkingDir('');
    onCreated();
  });
  return (
    <Card title="New project">
      <form class="grid" onSubmit={(e) => { e.preventDefault(); void create.run(); }}>
        <Field label="Name" required value={name} onInput={(e) => setName(e.currentTarget.value)} />
        <Field label="Working folder" required value={workingDir} onInput={(e) => setWorkingDir(e.currentTarget.value)} hint="Type a path or pick one below" />
        <DirectoryBrowser onPick={setWorkingDir} />
        <ErrorNote error={create.error} />
        <div><Button type="submit" disabled={create.busy || !name.trim() || !workingDir}>Create project</Button></div>
      </form>
    </Card>
  );
}

function DirectoryBrowser({ onPick }: { onPick: (path: string) => void }) {
  const [path, setPath] = useState<string | null>(null);
  const listing = useGet(`/api/browse-dirs${q({ path })}`);
  return (
    <div class="browser" role="group" aria-label="Directory browser">
      <Loading loaded={listing}>
        {(l: any) => (
          <>
            <p class="where">
              {l.path ? <code>{l.path}</code> : 'Allowed folders'}{' '}
              {l.path && <Button kind="plain" onClick={() => onPick(l.path)}>Use this folder</Button>}{' '}
              {l.path && <Button kind="plain" onClick={() => setPath(l.parent ?? null)}>Up</Button>}
            </p>
            {listOf(l.dirs).length === 0 ? <Empty>No folders here.</Empty> : (
              <ul class="dirs">
                {l.dirs.map((d: any) => (
                  <li key={d.path}><button type="button" class="link" onClick={() => setPath(d.path)}>{d.name}/</button></li>
                ))}
              </ul>
            )}
          </>
        )}
      </Loading>
    </div>
  );
}
