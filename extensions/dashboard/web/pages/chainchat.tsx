// Chainchat (messaging on Algorand): the account's status, the PSK contacts with their QR codes, the
// exchange URI and its rotation, the allowlist, and the conversations. URIs carry secret keys, so they
// are shown only to operators and owners (the server refuses viewers anyway).
import type { Me } from '../app.js';
import { Card, Empty, Loading, Page, Table, when } from '../components/ui.js';
import { useGet } from '../hooks.js';
import { Allowlist } from './chainchat-allowlist.js';
import { Contacts, Exchange } from './chainchat-keys.js';

export function Chainchat({ me }: { me: Me }) {
  const status = useGet('/api/chainchat/status', 15000);
  const operator = me.role !== 'viewer';
  return (
    <Page title="Chainchat">
      <Card title="Account">
        <Loading loaded={status}>
          {(s: any) => (
            <dl class="facts">
              <dt>Network</dt><dd>{s.network}{s.genesisId ? ` (${s.genesisId})` : ''}</dd>
              <dt>Address</dt><dd><code>{s.address}</code></dd>
              <dt>Node</dt><dd class={s.algodReachable ? 'ok-text' : 'bad-text'}>{s.algodReachable ? `reachable, round ${s.lastRound}` : 'not reachable'}</dd>
              <dt>Balance</dt><dd>{s.balance ?? '—'} microAlgos</dd>
              <dt>Last round read</dt><dd>{s.lastRoundSeen ?? '—'}</dd>
            </dl>
          )}
        </Loading>
      </Card>
      <Contacts operator={operator} />
      {operator && <Exchange />}
      <Allowlist me={me} />
      <Conversations />
    </Page>
  );
}

function Conversations() {
  const loaded = useGet('/api/chainchat/conversations', 10000, { limit: 50, messages: 5 });
  return (
    <Card title="Conversations">
      <Loading loaded={loaded}>
        {(data: any) => (data.conversations.length === 0 ? <Empty>No conversation yet.</Empty> : (
          <Table caption="Conversations" head={['Participant', 'Credits', 'Last message', 'Recent messages']}>
            {data.conversations.map((c: any) => (
              <tr key={c.address}>
                <td><code>{c.address}</code></td>
                <td class="cost">{c.credits}</td>
                <td>{when(c.lastMessageAt)}</td>
                <td>
                  <ul class="messages">
                    {(c.messages ?? []).map((m: any) => <li key={m.id}><span class="muted">{m.direction === 'inbound' ? 'in' : 'out'}:</span> {m.content ?? <em>refused</em>}</li>)}
                  </ul>
                </td>
              </tr>
            ))}
          </Table>
        ))}
      </Loading>
    </Card>
  );
}
