// Chat with an agent over the WebSocket (chat_send → chat_stream, chat_thinking, chat_tool_use and
// approval_request for this connection alone).
import { useState } from 'preact/hooks';
import { listOf } from '../api.js';
import { Approvals, type ApprovalRequest } from '../components/approval.js';
import { Button, Card, Empty, ErrorNote, Loading, Page, Select, TextArea } from '../components/ui.js';
import { useGet, useSocket } from '../hooks.js';
import type { Item } from '../transcript.js';
import { socket } from '../ws.js';
import { Stream } from './session-live.js';

export function Chat({ agentId }: { agentId?: string }) {
  const agents = useGet('/api/agents?limit=200');
  return (
    <Page title="Chat">
      <Loading loaded={agents}>
        {(data) => {
          const list = listOf(data);
          if (list.length === 0) return <Empty>Create an agent first, on the <a href="#/agents">agents</a> page.</Empty>;
          const chosen = agentId && list.some((a: any) => a.id === agentId) ? agentId : list[0].id;
          return (
            <>
              <Select label="Agent" value={chosen} onChange={(e) => (location.hash = `#/chat/${encodeURIComponent(e.currentTarget.value)}`)} options={list.map((a: any) => [a.id, a.name])} />
              <Conversation key={chosen} agentId={chosen} />
            </>
          );
        }}
      </Loading>
    </Page>
  );
}

function Conversation({ agentId }: { agentId: string }) {
  const [items, setItems] = useState<Item[]>([]);
  const [requests, setRequests] = useState<ApprovalRequest[]>([]);
  const [content, setContent] = useState('');
  const [error, setError] = useState<string | null>(null);
  const [waiting, setWaiting] = useState(false);

  useSocket((m) => {
    if (m.type === 'error' && waiting) {
      setError(m.message);
      setWaiting(false);
    }
    if (m.agentId !== agentId) return;
    if (m.type === 'chat_stream') {
      if (m.done) setWaiting(false);
      if (m.chunk) setItems((list) => appendText(list, 'assistant', m.chunk));
    } else if (m.type === 'chat_thinking') setItems((list) => appendText(list, 'thinking', m.thinking));
    else if (m.type === 'chat_tool_use') {
      setItems((list) =>
        m.phase === 'call'
          ? [...list, { kind: 'tool', id: m.toolUseId, name: m.toolName, input: m.input }]
          : list.map((i) => (i.kind === 'tool' && i.id === m.toolUseId ? { ...i, output: String(m.output ?? ''), isError: Boolean(m.isError) } : i)),
      );
    } else if (m.type === 'approval_request') setRequests((r) => [...r, m.request]);
  });

  const send = (event: Event) => {
    event.preventDefault();
    if (!content.trim()) return;
    setError(null);
    if (!socket.send({ type: 'chat_send', agentId, content })) return setError('not connected to the server yet; try again in a moment');
    setItems((list) => [...list, { kind: 'user', text: content }]);
    setContent('');
    setWaiting(true);
  };
  const answered = (id: string) => setRequests((r) => r.filter((x) => x.id !== id));

  return (
    <Card title="Conversation">
      <Stream items={items} />
      <Approvals requests={requests} onAnswered={answered} />
      <form class="send" onSubmit={send}>
        <TextArea label="Your message" rows={2} value={content} onInput={(e) => setContent(e.currentTarget.value)} />
        <ErrorNote error={error} />
        <Button type="submit" disabled={!content.trim()}>{waiting ? 'Sending…' : 'Send'}</Button>
      </form>
    </Card>
  );
}

function appendText(list: Item[], kind: 'assistant' | 'thinking', text: string): Item[] {
  const last = list[list.length - 1];
  if (last && last.kind === kind) return [...list.slice(0, -1), { ...last, text: last.text + text }];
  return [...list, { kind, text, turn: 0 }];
}
