// A listing of your own, new or edited: kind, name, description, tags, what it offers, the seller agent
// (paid when it is used) and the price of one use in credits.
import { useState } from 'preact/hooks';
import { api, listOf } from '../api.js';
import { Button, Card, ErrorNote, Field, Loading, Page, Select, TextArea, link } from '../components/ui.js';
import { useAction, useGet } from '../hooks.js';
import { KINDS } from './marketplace.js';

export function MarketEdit({ id }: { id?: string }) {
  const existing = useGet(id ? `/api/marketplace/listings/${encodeURIComponent(id)}` : null);
  if (!id) return <ListingForm />;
  return <Loading loaded={existing}>{(l: any) => <ListingForm listing={l} />}</Loading>;
}

function ListingForm({ listing }: { listing?: any }) {
  const agents = useGet('/api/agents');
  const [form, setForm] = useState({
    kind: listing?.kind ?? 'agent', name: listing?.name ?? '', description: listing?.description ?? '', tags: (listing?.tags ?? []).join(', '),
    resourceId: listing?.resourceId ?? '', agentId: listing?.agentId ?? '', price: listing ? String(listing.priceMicroUnits / 1_000_000) : '0', visibility: listing?.visibility ?? 'public',
  });
  const save = useAction(async () => {
    const body = {
      ...(listing ? {} : { kind: form.kind }),
      name: form.name.trim(), description: form.description, visibility: form.visibility,
      tags: form.tags.split(',').map((t: string) => t.trim()).filter(Boolean),
      priceMicroUnits: Math.round(Number(form.price || 0) * 1_000_000),
      ...(form.resourceId.trim() ? { resourceId: form.resourceId.trim() } : {}),
      ...(form.agentId ? { agentId: form.agentId } : {}),
    };
    const saved = listing
      ? await api('PUT', `/api/marketplace/listings/${encodeURIComponent(listing.id)}`, body)
      : await api('POST', '/api/marketplace/listings', body);
    location.hash = link('marketplace', 'listing', saved.id);
  });
  const set = (field: keyof typeof form) => (e: { currentTarget: { value: string } }) => setForm({ ...form, [field]: e.currentTarget.value });
  const agentOptions = listOf(agents.data, 'agents').map((a: any): [string, string] => [a.id, a.name]);
  return (
    <Page title={listing ? `Edit listing ${listing.name}` : 'New listing'}>
      <Card>
        <form class="grid" onSubmit={(e) => { e.preventDefault(); void save.run(); }}>
          {!listing && <Select label="Kind" options={KINDS} value={form.kind} onChange={set('kind')} />}
          <Field label="Name" required maxLength={200} value={form.name} onInput={set('name')} />
          <Field label="Tags" hint="separated by commas" value={form.tags} onInput={set('tags')} />
          <Field label="Offered resource id" hint="the agent, bundle or workflow offered" value={form.resourceId} onInput={set('resourceId')} />
          <Select label="Seller agent" options={[['', 'None (free listings only)'], ...agentOptions]} value={form.agentId} onChange={set('agentId')} />
          <Field label="Price per use (credits)" type="number" min={0} step="any" required value={form.price} onInput={set('price')} />
          <Select label="Visibility" options={[['public', 'Public: every tenant and federated servers'], ['private', 'Private: this tenant only']]} value={form.visibility} onChange={set('visibility')} />
          <TextArea label="Description" rows={4} maxLength={10000} value={form.description} onInput={set('description')} />
          <ErrorNote error={save.error} />
          <div class="inline">
            <Button type="submit" disabled={save.busy}>{listing ? 'Save listing' : 'Create listing'}</Button>
            <a class="btn btn-plain" href={listing ? link('marketplace', 'listing', listing.id) : link('marketplace')}>Cancel</a>
          </div>
        </form>
      </Card>
    </Page>
  );
}
