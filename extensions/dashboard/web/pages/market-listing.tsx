// One listing: what it offers and for how much, its reviews (write one, delete yours), using it (a paid
// use names the agent whose wallet pays; the price is held until the use is settled), and settling a
// held use as a success (paid to the seller) or a failure (refunded).
import { useState } from 'preact/hooks';
import { api, listOf } from '../api.js';
import type { Me } from '../app.js';
import { Button, Card, Empty, ErrorNote, Loading, Page, Select, Status, TextArea, link, micro, when } from '../components/ui.js';
import { useAction, useGet } from '../hooks.js';

export function MarketListing({ id, me }: { id: string; me: Me }) {
  const path = `/api/marketplace/listings/${encodeURIComponent(id)}`;
  const listing = useGet(path);
  const remove = useAction(async () => {
    await api('DELETE', path);
    location.hash = link('marketplace', 'mine');
  });
  return (
    <Loading loaded={listing}>
      {(l: any) => (
        <Page title={`Listing ${l.name}`} actions={l.mine && me.role !== 'viewer' && (
          <>
            <a class="btn btn-plain" href={link('marketplace', 'edit', l.id)}>Edit</a>
            <Button kind="danger" disabled={remove.busy} onClick={() => confirm(`Delete the listing ${l.name}?`) && remove.run()}>Delete</Button>
          </>
        )}>
          <p><a href={link('marketplace')}>Back to the marketplace</a></p>
          <ErrorNote error={remove.error} />
          <Card>
            <dl class="facts">
              <dt>Kind</dt><dd>{l.kind.replace('_', ' ')}</dd>
              <dt>Price</dt><dd class="cost">{l.priceMicroUnits ? `${micro(l.priceMicroUnits)} credits a use` : 'free'}</dd>
              <dt>Rating</dt><dd>{l.rating.count ? `${l.rating.average.toFixed(1)} ★ from ${l.rating.count}` : 'no reviews yet'}</dd>
              <dt>Uses</dt><dd>{l.useCount}</dd>
              {l.agentReputation !== null && l.agentReputation !== undefined && <><dt>Seller's reputation</dt><dd>{Number(l.agentReputation).toFixed(1)} / 100</dd></>}
              <dt>Tags</dt><dd>{l.tags.length ? l.tags.join(', ') : '—'}</dd>
              <dt>Visibility</dt><dd>{l.visibility}</dd>
              <dt>Updated</dt><dd>{when(l.updatedAt)}</dd>
            </dl>
            {l.description && <p class="prompt">{l.description}</p>}
          </Card>
          {me.role !== 'viewer' && <UseListing listing={l} onUsed={listing.reload} />}
          <Reviews listing={l} canWrite={me.role !== 'viewer'} onChange={listing.reload} />
        </Page>
      )}
    </Loading>
  );
}

function UseListing({ listing, onUsed }: { listing: any; onUsed: () => void }) {
  const agents = useGet(listing.priceMicroUnits ? '/api/agents' : null);
  const [agentId, setAgentId] = useState('');
  const [uses, setUses] = useState<any[]>([]);
  const use = useAction(async () => {
    const made = await api('POST', `/api/marketplace/listings/${encodeURIComponent(listing.id)}/use`, listing.priceMicroUnits ? { agentId } : {});
    setUses([made, ...uses]);
    onUsed();
  });
  const settle = useAction(async (useId: string, outcome: 'success' | 'failure') => {
    const settled = await api('POST', `/api/marketplace/uses/${encodeURIComponent(useId)}/settle`, { outcome });
    setUses(uses.map((u) => (u.id === useId ? settled : u)));
  });
  const options = listOf(agents.data, 'agents').map((a: any): [string, string] => [a.id, a.name]);
  return (
    <Card title="Use this listing">
      <form class="inline" onSubmit={(e) => { e.preventDefault(); void use.run(); }}>
        {listing.priceMicroUnits > 0 && <Select label="Paying agent" required options={[['', 'Choose an agent'], ...options]} value={agentId} onChange={(e) => setAgentId(e.currentTarget.value)} />}
        <Button type="submit" disabled={use.busy || (listing.priceMicroUnits > 0 && !agentId)}>
          {listing.priceMicroUnits ? `Use for ${micro(listing.priceMicroUnits)} credits` : 'Use (free)'}
        </Button>
      </form>
      {listing.priceMicroUnits > 0 && <p class="muted">The price is held from the agent's wallet until you settle the use: success pays the seller, failure refunds you. Unsettled, it is paid after the dispute window.</p>}
      <ErrorNote error={use.error ?? settle.error} />
      {uses.length > 0 && (
        <ul class="questions" aria-label="Your uses of this listing">
          {uses.map((u) => (
            <li key={u.id} class="question">
              <Status value={u.state} /> <code>{u.id}</code> · {u.microUnits ? `${micro(u.microUnits)} credits` : 'free'}{u.outcome ? ` · ${u.outcome}` : ''}
              {u.state === 'held' && (
                <span class="inline">
                  <Button kind="plain" disabled={settle.busy} onClick={() => settle.run(u.id, 'success')} aria-label={`It worked: pay, settling use ${u.id} as a success`}>It worked: pay</Button>
                  <Button kind="danger" disabled={settle.busy} onClick={() => settle.run(u.id, 'failure')} aria-label={`It failed: refund, settling use ${u.id} as a failure`}>It failed: refund</Button>
                </span>
              )}
            </li>
          ))}
        </ul>
      )}
    </Card>
  );
}

function Reviews({ listing, canWrite, onChange }: { listing: any; canWrite: boolean; onChange: () => void }) {
  const path = `/api/marketplace/listings/${encodeURIComponent(listing.id)}/reviews`;
  const reviews = useGet(path);
  const [rating, setRating] = useState('5');
  const [comment, setComment] = useState('');
  const act = useAction(async (method: string, route: string, body?: unknown) => {
    await api(method, route, body);
    setComment('');
    reviews.reload();
    onChange();
  });
  return (
    <Card title="Reviews">
      <Loading loaded={reviews}>
        {(data: any) => (data.reviews.length === 0 ? <Empty>No reviews yet.</Empty> : (
          <ul class="questions" aria-label="Reviews">
            {data.reviews.map((r: any) => (
              <li key={r.id} class="question">
                <strong>{'★'.repeat(r.rating)}{'☆'.repeat(5 - r.rating)}</strong> <span class="sr-only">{r.rating} of 5</span> <span class="muted">{when(r.createdAt)}</span>
                {r.comment && <p class="prompt">{r.comment}</p>}
                {canWrite && (r.mine || listing.mine) && <Button kind="plain" disabled={act.busy} onClick={() => act.run('DELETE', `/api/marketplace/reviews/${encodeURIComponent(r.id)}`)} aria-label={`Delete the review of ${r.rating} stars`}>Delete</Button>}
              </li>
            ))}
          </ul>
        ))}
      </Loading>
      {canWrite && !listing.mine && (
        <form class="grid" onSubmit={(e) => { e.preventDefault(); void act.run('POST', path, { rating: Number(rating), ...(comment.trim() ? { comment: comment.trim() } : {}) }); }}>
          <Select label="Rating" options={[['5', '5 ★'], ['4', '4 ★'], ['3', '3 ★'], ['2', '2 ★'], ['1', '1 ★']]} value={rating} onChange={(e) => setRating(e.currentTarget.value)} />
          <TextArea label="Comment" rows={2} maxLength={5000} value={comment} onInput={(e) => setComment(e.currentTarget.value)} />
          <div><Button type="submit" disabled={act.busy}>Post review</Button></div>
        </form>
      )}
      <ErrorNote error={act.error} />
    </Card>
  );
}
