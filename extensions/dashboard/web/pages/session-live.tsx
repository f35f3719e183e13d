// One session, live: its stream (text, thinking, tool calls) from the WebSocket after a replay of what
// came before, approvals answered with a click, stop and resume, a new message, and the cost so far.
import { useEffect, useRef, useState } from 'preact/hooks';
import { api } from '../api.js';
import { Approvals, type ApprovalRequest } from '../components/approval.js';
import { Button, Card, credits, ErrorNote, Loading, Page, sessionState, Status, TextArea } from '../components/ui.js';
import { useAction, useGet, useSocket } from '../hooks.js';
import { addEvent, emptyTranscript, type Item } from '../transcript.js';
import { socket } from '../ws.js';

export function SessionLive({ id }: { id: string }) {
  // Polled as well: the record's turns, cost and busy flag are written a moment after the events that announce them.
  const session = useGet(`/api/sessions/${encodeURIComponent(id)}`, 5000);
  const agent = useGet(session.data ? `/api/agents/${encodeURIComponent(session.data.agentId)}` : null);
  const [transcript, setTranscript] = useState(emptyTranscript);
  const [status, setStatus] = useState<string | null>(null);
  const [requests, setRequests] = useState<ApprovalRequest[]>([]);

  useEffect(() => {
    setTranscript(emptyTranscript());
    setRequests([]);
    return socket.subscribe('sessionId', id, 0);
  }, [id]);

  useSocket((m) => {
    if (m.sessionId !== id) return;
    if (m.type === 'session_event') {
      setTranscript((t) => addEvent(t, Number(m.seq), m.event));
      // The record's turns, cost and busy flag move at the end of each turn (and when a message starts one).
      if (m.event?.type === 'turn_end' || m.event?.type === 'user_message') session.reload();
    }
    else if (m.type === 'session_status') {
      setStatus(m.status);
      session.reload();
    } else if (m.type === 'approval_request' && !m.request?.queued) setRequests((r) => (r.some((x) => x.id === m.request.id) ? r : [...r, m.request]));
    if (m.type === 'session_event' && m.event?.type === 'approval') setRequests((r) => r.filter((x) => x.id !== m.event.requestId));
  });

  const answered = (id: string) => setRequests((r) => r.filter((x) => x.id !== id));
  const lifecycle = useAction(async (action: 'stop' | 'resume') => {
    await api('POST', `/api/sessions/${encodeURIComponent(id)}/${action}`, {});
    session.reload();
  });

  return (
    <Loading loaded={session}>
      {(s: any) => {
        const current = status ?? s.status;
        const shown = current === s.status ? sessionState(s) : current;
        return (
          <Page
            title={s.name || `Session ${id.slice(0, 8)}`}
            actions={
              <>
                <Status value={shown} />
                <span class="cost" aria-live="polite">Cost so far: {credits(Math.max(s.cost ?? 0, transcript.cost))}</span>
                {['running', 'resumed', 'created', 'paused'].includes(current) && <Button kind="danger" disabled={lifecycle.busy} onClick={() => lifecycle.run('stop')}>Stop</Button>}
                {['paused', 'timeout', 'error'].includes(current) && <Button disabled={lifecycle.busy} onClick={() => lifecycle.run('resume')}>Resume</Button>}
              </>
            }
          >
            <ErrorNote error={lifecycle.error} />
            <Approvals requests={requests} onAnswered={answered} />
            <Card title="Conversation">
              <Stream items={transcript.items} />
            </Card>
            {!['stopped'].includes(current) && <SendMessage id={id} />}
            <dl class="facts">
              <dt>Agent</dt><dd><a href={`#/agents/${encodeURIComponent(s.agentId)}`}>{agent.data?.name ?? s.agentId}</a></dd>
              <dt>Model</dt><dd>{s.provider ?? '—'} / {s.model ?? '—'}</dd>
              <dt>Turns</dt><dd>{s.turns ?? 0}</dd>
              <dt>Source</dt><dd>{s.source}</dd>
            </dl>
          </Page>
        );
      }}
    </Loading>
  );
}

export function Stream({ items }: { items: Item[] }) {
  const end = useRef<HTMLDivElement>(null);
  useEffect(() => end.current?.scrollIntoView?.({ block: 'nearest' }), [items.length]);
  if (items.length === 0) return <p class="empty">Nothing said yet.</p>;
  return (
    // Focusable, so a keyboard can scroll it.
    <div class="stream" role="log" aria-live="polite" aria-label="Session stream" tabIndex={0}>
      {items.map((item, i) => <StreamItem key={i} item={item} />)}
      <div ref={end} />
    </div>
  );
}

function StreamItem({ item }: { item: Item }) {
  switch (item.kind) {
    case 'user':
      return <div class="msg msg-user"><span class="who">You</span><p>{item.text}</p></div>;
    case 'assistant':
      return <div class="msg msg-agent"><span class="who">Agent</span><p>{item.text}</p></div>;
    case 'thinking':
      return <details class="msg msg-thinking"><summary>Thinking</summary><p>{item.text}</p></details>;
    case 'tool':
      return (
        <details class={`msg msg-tool${item.isError ? ' is-error' : ''}`} open={item.output === undefined}>
          <summary>Tool: {item.name}{item.output === undefined ? ' (running)' : item.isError ? ' (failed)' : ''}</summary>
          <pre>{JSON.stringify(item.input, null, 2)}</pre>
          {item.output !== undefined && <pre class="output">{item.output}</pre>}
        </details>
      );
    case 'note':
      return <p class="msg msg-note">{item.text}</p>;
  }
}

function SendMessage({ id }: { id: string }) {
  const [content, setContent] = useState('');
  const send = useAction(async () => {
    await api('POST', `/api/sessions/${encodeURIComponent(id)}/messages`, { content });
    setContent('');
  });
  return (
    <form class="send" onSubmit={(e) => { e.preventDefault(); if (content.trim()) void send.run(); }}>
      <TextArea label="Message to the agent" rows={2} value={content} onInput={(e) => setContent(e.currentTarget.value)} />
      <ErrorNote error={send.error} />
      <Button type="submit" disabled={send.busy || !content.trim()}>Send</Button>
    </form>
  );
}
