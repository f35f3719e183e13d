// The marketplace: search with filters, your own listings, and the listings pulled from federated
// servers, as tabs of one page; a listing's own page and its form live in market-*.tsx.
import { useState } from 'preact/hooks';
import { q } from '../api.js';
import { Button, Empty, Field, Loading, Page, Select, Table, link, micro } from '../components/ui.js';
import { useGet } from '../hooks.js';
import { MarketFederated } from './market-federated.js';

export const KINDS: Array<[string, string]> = [['agent', 'Agent'], ['skill_bundle', 'Skill bundle'], ['workflow', 'Workflow']];
const TABS: Array<[string, string]> = [['', 'Search'], ['mine', 'My listings'], ['federated', 'Federated']];

function MarketTabs({ current }: { current: string }) {
  return (
    <nav class="tabs" aria-label="Marketplace">
      {TABS.map(([path, label]) => (
        <a key={path} href={path ? link('marketplace', path) : link('marketplace')} aria-current={current === path ? 'page' : undefined}>{label}</a>
      ))}
    </nav>
  );
}

export function Marketplace({ tab = '' }: { tab?: string }) {
  return (
    <Page title="Marketplace" actions={<a class="btn btn-primary" href={link('marketplace', 'new')}>New listing</a>}>
      <MarketTabs current={tab} />
      {tab === 'mine' ? <MyListings /> : tab === 'federated' ? <MarketFederated /> : <Search />}
    </Page>
  );
}

function ListingRows({ listings }: { listings: any[] }) {
  return (
    <Table caption="Listings" head={['Name', 'Kind', 'Price (credits)', 'Rating', 'Uses', 'Tags']}>
      {listings.map((l) => (
        <tr key={l.id}>
          <td><a href={link('marketplace', 'listing', l.id)}>{l.name}</a>{l.mine ? <span class="muted"> (yours)</span> : ''}</td>
          <td>{l.kind.replace('_', ' ')}</td>
          <td class="cost">{l.priceMicroUnits ? micro(l.priceMicroUnits) : 'free'}</td>
          <td>{l.rating?.count ? `${l.rating.average.toFixed(1)} ★ (${l.rating.count})` : '—'}</td>
          <td>{l.useCount ?? 0}</td>
          <td>{(l.tags ?? []).join(', ')}</td>
        </tr>
      ))}
    </Table>
  );
}

function Search() {
  const [form, setForm] = useState({ q: '', kind: '', tag: '', maxPrice: '', minRating: '' });
  const [asked, setAsked] = useState(form);
  const credits = asked.maxPrice.trim() === '' ? undefined : Math.round(Number(asked.maxPrice) * 1_000_000);
  const found = useGet(`/api/marketplace/search${q({ q: asked.q.trim(), kind: asked.kind, tag: asked.tag.trim(), maxPrice: credits, minRating: asked.minRating, limit: 50 })}`);
  const set = (field: keyof typeof form) => (e: { currentTarget: { value: string } }) => setForm({ ...form, [field]: e.currentTarget.value });
  return (
    <>
      <form class="grid" role="search" onSubmit={(e) => { e.preventDefault(); setAsked(form); }}>
        <Field label="Search" type="search" maxLength={500} value={form.q} onInput={set('q')} />
        <Select label="Kind" options={[['', 'Any kind'], ...KINDS]} value={form.kind} onChange={set('kind')} />
        <Field label="Tag" value={form.tag} onInput={set('tag')} />
        <Field label="Highest price (credits)" type="number" min={0} step="any" value={form.maxPrice} onInput={set('maxPrice')} />
        <Select label="Lowest rating" options={[['', 'Any rating'], ['1', '1 ★'], ['2', '2 ★'], ['3', '3 ★'], ['4', '4 ★'], ['5', '5 ★']]} value={form.minRating} onChange={set('minRating')} />
        <div><Button type="submit">Search</Button></div>
      </form>
      <Loading loaded={found}>
        {(data: any) => (data.results.length === 0 ? <Empty>No listing matches.</Empty> : (
          <>
            <p role="status" class="muted">{data.total} found{data.hasMore ? ', the first 50 shown' : ''}.</p>
            <ListingRows listings={data.results} />
          </>
        ))}
      </Loading>
    </>
  );
}

function MyListings() {
  const mine = useGet('/api/marketplace/listings?limit=100');
  return (
    <Loading loaded={mine}>
      {(data: any) => (data.listings.length === 0 ? <Empty>You have no listings yet.</Empty> : <ListingRows listings={data.listings} />)}
    </Loading>
  );
}
