// What waits on a person: tool uses on the escalation queue, and questions agents asked the owner.
import { useState } from 'preact/hooks';
import { api, listOf } from '../api.js';
import { Button, Card, Empty, ErrorNote, Field, link, Loading, Page, Status, Table, when } from '../components/ui.js';
import { useAction, useGet } from '../hooks.js';

export function Escalations() {
  const queue = useGet('/api/escalation-queue?limit=100', 5000);
  const questions = useGet('/api/owner-questions?limit=50', 5000);
  const resolve = useAction(async (id: string, behavior: 'allow' | 'deny') => {
    await api('POST', `/api/escalation-queue/${encodeURIComponent(id)}/resolve`, { behavior });
    queue.reload();
  });
  return (
    <Page title="Approvals & questions">
      <Card title="Escalation queue">
        <ErrorNote error={resolve.error} />
        <Loading loaded={queue}>
          {(data) => listOf(data).length === 0 ? <Empty>Nothing waits for approval.</Empty> : (
            <Table caption="Pending approvals" head={['Tool', 'Input', 'Session', 'Why', 'Since', '']}>
              {listOf(data).map((e: any) => (
                <tr key={e.id}>
                  <td>{e.toolName}</td>
                  <td><code>{JSON.stringify(e.input ?? {}).slice(0, 120)}</code></td>
                  <td><a href={link('sessions', e.sessionId)}>{String(e.sessionId).slice(0, 8)}</a></td>
                  <td>{e.reason}</td>
                  <td>{when(e.createdAt)}</td>
                  <td>
                    <Button onClick={() => resolve.run(e.id, 'allow')} aria-label={`Allow ${e.toolName}`}>Allow</Button>{' '}
                    <Button kind="danger" onClick={() => resolve.run(e.id, 'deny')} aria-label={`Deny ${e.toolName}`}>Deny</Button>
                  </td>
                </tr>
              ))}
            </Table>
          )}
        </Loading>
      </Card>
      <Card title="Owner questions">
        {questions.error?.status === 404 ? <Empty>Owner questions are not available on this server.</Empty> : (
          <Loading loaded={questions}>
            {(data) => listOf(data).length === 0 ? <Empty>No questions.</Empty> : (
              <ul class="questions">{listOf(data).map((question: any) => <Question key={question.id} question={question} onAnswered={questions.reload} />)}</ul>
            )}
          </Loading>
        )}
      </Card>
    </Page>
  );
}

function Question({ question, onAnswered }: { question: any; onAnswered: () => void }) {
  const [answer, setAnswer] = useState('');
  const send = useAction(async (text: string) => {
    await api('POST', `/api/owner-questions/${encodeURIComponent(question.id)}/answer`, { answer: text });
    onAnswered();
  });
  const options: string[] = question.options ?? [];
  return (
    <li class="question">
      <p><Status value={question.status} /> {question.question} <small>({when(question.createdAt)})</small></p>
      {question.answer && <p>Answer: <strong>{question.answer}</strong></p>}
      {question.status === 'pending' && (
        options.length > 0 ? (
          <div class="actions">{options.map((o) => <Button key={o} kind="plain" disabled={send.busy} onClick={() => send.run(o)}>{o}</Button>)}</div>
        ) : (
          <form class="inline" onSubmit={(e) => { e.preventDefault(); void send.run(answer); }}>
            <Field label="Your answer" value={answer} onInput={(e) => setAnswer(e.currentTarget.value)} />
            <Button type="submit" disabled={send.busy || !answer.trim()}>Answer</Button>
          </form>
        )
      )}
      <ErrorNote error={send.error} />
    </li>
  );
}
