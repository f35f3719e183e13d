// One council launch, live: its stage, the members, the discussion, the votes and the synthesis. The
// WebSocket stream (subscribe launchId, replayed from the start) brings stage changes, log lines and
// discussion messages; the launch record is read again on every stage change.
import { useEffect, useState } from 'preact/hooks';
import { api } from '../api.js';
import { Button, Card, ErrorNote, Loading, Page, Status, Table } from '../components/ui.js';
import { useAction, useGet, useSocket } from '../hooks.js';
import { socket } from '../ws.js';

const STAGES = ['responding', 'discussing', 'reviewing', 'synthesizing', 'completed'];

export function CouncilLaunch({ id }: { id: string }) {
  const path = `/api/council-launches/${encodeURIComponent(id)}`;
  const launch = useGet(path);
  const agents = useGet('/api/agents?limit=200');
  const [events, setEvents] = useState<any[]>([]);
  useEffect(() => {
    setEvents([]);
    return socket.subscribe('launchId', id, 0);
  }, [id]);
  useSocket((m) => {
    if (m.launchId !== id || !String(m.type).startsWith('council_')) return;
    setEvents((list) => (list.some((e) => e.seq === m.seq) ? list : [...list, m].sort((a, b) => a.seq - b.seq)));
    if (m.type === 'council_stage_change') launch.reload();
  });
  const move = useAction(async (action: 'review' | 'synthesize' | 'abort') => {
    await api('POST', `${path}/${action}`, {});
    launch.reload();
  });
  const names = new Map<string, string>((agents.data?.agents ?? []).map((a: any) => [a.id, a.name]));
  const who = (agentId: string | null) => (agentId ? (names.get(agentId) ?? agentId.slice(0, 8)) : 'You');
  return (
    <Loading loaded={launch}>
      {(l: any) => {
        const inProgress = !['completed', 'aborted', 'failed'].includes(l.stage);
        return (
          <Page
            title="Council launch"
            actions={
              <>
                <Status value={l.stage} />
                {l.stageState === 'waiting' && l.stage === 'discussing' && <Button onClick={() => move.run('review')}>Start review</Button>}
                {l.stageState === 'waiting' && l.stage === 'reviewing' && <Button onClick={() => move.run('synthesize')}>Synthesize</Button>}
                {inProgress && <Button kind="danger" onClick={() => move.run('abort')}>Abort</Button>}
              </>
            }
          >
            <ErrorNote error={move.error} />
            <p class="prompt">{l.prompt}</p>
            <ol class="stages" aria-label="Stages">
              {STAGES.map((stage) => {
                const index = STAGES.indexOf(l.stage);
                const state = stage === l.stage ? 'current' : index > STAGES.indexOf(stage) || l.stage === 'completed' ? 'done' : 'todo';
                return <li key={stage} class={`stage stage-${state}`} aria-current={state === 'current' ? 'step' : undefined}>{stage}</li>;
              })}
            </ol>
            {l.error && <ErrorNote error={l.error} />}
            {l.result && (
              <Card title="Synthesis">
                <p class="result">{l.result}</p>
              </Card>
            )}
            {(l.votes ?? []).length > 0 && (
              <Card title="The vote">
                <Table caption="Votes" head={['Member', 'Vote', 'Reason']}>
                  {l.votes.map((v: any) => <tr key={v.agentId}><td>{who(v.agentId)}</td><td><Status value={v.vote} /></td><td>{v.reason}</td></tr>)}
                </Table>
              </Card>
            )}
            <Card title="Discussion">
              <div class="stream" role="log" aria-label="Council discussion" tabIndex={0}>
                {events.length === 0 && <p class="empty">Nothing yet.</p>}
                {events.map((e) =>
                  e.type === 'council_discussion_message' ? (
                    <div key={e.seq} class="msg msg-agent">
                      <span class="who">{who(e.agentId)} · {e.kind}{e.round ? ` (round ${e.round})` : ''}</span>
                      <p>{e.content}</p>
                    </div>
                  ) : (
                    <p key={e.seq} class="msg msg-note">{e.type === 'council_stage_change' ? `Stage: ${e.stage}${e.reason ? ` (${e.reason})` : ''}` : e.message}</p>
                  ),
                )}
              </div>
            </Card>
          </Page>
        );
      }}
    </Loading>
  );
}
