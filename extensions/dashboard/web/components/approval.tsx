// Tool uses waiting for a person: what the tool wants to run with, and Allow / Deny, answered as
// `approval_response` on the WebSocket.
import { socket } from '../ws.js';
import { Button } from './ui.js';

export interface ApprovalRequest {
  id: string;
  toolName: string;
  input: unknown;
}

export function Approvals({ requests, onAnswered }: { requests: ApprovalRequest[]; onAnswered: (id: string) => void }) {
  if (requests.length === 0) return null;
  const answer = (request: ApprovalRequest, behavior: 'allow' | 'deny') => {
    if (socket.send({ type: 'approval_response', requestId: request.id, behavior })) onAnswered(request.id);
  };
  return (
    <section class="card" aria-labelledby="approvals-title">
      <h2 id="approvals-title">Waiting for your approval</h2>
      <ul class="approvals">
        {requests.map((r) => (
          <li key={r.id} class="approval">
            <p><strong>{r.toolName}</strong> wants to run with:</p>
            <pre>{JSON.stringify(r.input, null, 2)}</pre>
            <div class="actions">
              <Button onClick={() => answer(r, 'allow')} aria-label={`Allow ${r.toolName}`}>Allow</Button>
              <Button kind="danger" onClick={() => answer(r, 'deny')} aria-label={`Deny ${r.toolName}`}>Deny</Button>
            </div>
          </li>
        ))}
      </ul>
    </section>
  );
}
