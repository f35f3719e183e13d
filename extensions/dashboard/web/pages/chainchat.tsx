// Chainchat (messaging on Algorand): the account's status, the PSK contacts with their QR codes, the
// exchange URI and its rotation, the allowlist, and the conversations. URIs carry secret keys, so they
// are shown only to operators and owners (the server refuses viewers anyway).
import type { Me } from '../app.js';
import { api } from '../api.js';
import { Button, Card, Empty, ErrorNote, Loading, Page, Table, when } from '../components/ui.js';
import { useAction, useGet } from '../hooks.js';
import { Allowlist } from './chainchat-allowlist.js';
import { Contacts, Exchange } from './chainchat-keys.js';

export function Chainchat({ me }: { me: Me }) {
  const status = useGet('/api/chainchat/status', 15000);
  const operator = me.role !== 'viewer';
  return (
    <Page title="Chainchat">
      <p class="muted">Chat with your agents from an Algorand wallet: each message is encrypted and sent as the note of a payment transaction. Nothing is sent to the network, or read from it, until chainchat is set up.</p>
      <Card title="Account">
        <Loading loaded={status}>
          {(s: any) => (s.enabled ? <Account s={s} /> : <SetUp network={s.network} me={me} done={status.reload} />)}
        </Loading>
      </Card>
      <Contacts operator={operator} />
      {operator && status.data?.enabled && <Exchange />}
      <Allowlist me={me} />
      <Conversations />
    </Page>
  );
}

function Account({ s }: { s: any }) {
  return (
    <dl class="facts">
      <dt>Network</dt><dd>{s.network}{s.genesisId ? ` (${s.genesisId})` : ''}</dd>
      <dt>Address</dt><dd><code>{s.address}</code></dd>
      <dt>Node</dt><dd class={s.algodReachable ? 'ok-text' : 'bad-text'}>{s.algodReachable ? `reachable, round ${s.lastRound}` : 'not reachable'}</dd>
      <dt>Balance</dt><dd>{s.balance === null ? '—' : `${(Number(s.balance) / 1_000_000).toLocaleString('en', { maximumFractionDigits: 6 })} ALGO`}</dd>
      <dt>Last round read</dt><dd>{s.lastRoundSeen ?? '—'}</dd>
    </dl>
  );
}

/** Before set-up: the owner chooses the network (which makes the account); others are told who can. */
function SetUp({ network, me, done }: { network: string; me: Me; done: () => void }) {
  const setUp = useAction(async () => {
    await api('POST', '/api/chainchat/network', { network });
    done();
  });
  return (
    <div>
      <p role="status">Not set up. Setting it up makes this workspace's Algorand account and starts reading the {network} network for messages to it.</p>
      {me.role === 'owner'
        ? <Button disabled={setUp.busy} onClick={() => void setUp.run()}>Set up chainchat on {network}</Button>
        : <p class="muted">The owner sets it up here; adding a contact with a shared key (below) sets it up too.</p>}
      <ErrorNote error={setUp.error} />
    </div>
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
