// The billing page's cards, each reading one billing route: the subscription (subscribe, change plan,
// cancel for owners), the period's usage, the invoices and the price of N credits.
import { useState } from 'preact/hooks';
import { api, q } from '../api.js';
import type { Me } from '../app.js';
import { Button, Card, Empty, ErrorNote, Field, Loading, Select, Status, Table, micro, when } from '../components/ui.js';
import { useAction, useGet } from '../hooks.js';
import type { TenantPlan } from './billing.js';

const money = (cents: number, currency: string): string =>
  (cents / 100).toLocaleString('en', { style: 'currency', currency: currency.toUpperCase() });

/** The paid plans, lowest first; a tenant with no subscription is offered only those above its plan. */
const PAID_PLANS = ['pro', 'enterprise'];
const rank = (plan: string): number => ['free', ...PAID_PLANS].indexOf(plan);

export function Subscription({ tenant, me, onChange }: { tenant: TenantPlan; me: Me; onChange: () => void }) {
  const path = `/api/billing/subscription/${encodeURIComponent(tenant.id)}`;
  // A tenant that never subscribed has no subscription to read (the read would be a 404).
  const [subscribed, setSubscribed] = useState(false);
  const sub = useGet(tenant.billingStatus === 'none' && !subscribed ? null : path);
  const [picked, setPlan] = useState('');
  const act = useAction(async (method: string, route: string, body: unknown) => {
    await api(method, route, body);
    setSubscribed(true);
    sub.reload();
    onChange();
  });
  const none = (tenant.billingStatus === 'none' && !subscribed) || sub.error?.status === 404;
  const paying = !none && sub.data && ['active', 'trialing', 'past_due'].includes(sub.data.status);
  const choices = paying ? PAID_PLANS.filter((p) => p !== sub.data.plan) : PAID_PLANS.filter((p) => rank(p) > rank(tenant.plan));
  const plan = choices.includes(picked) ? picked : (choices[0] ?? '');
  return (
    <Card title="Subscription">
      {none ? <p>No subscription: the tenant is on the <strong>{tenant.plan}</strong> plan{choices.length === 0 ? ', the highest there is' : ''}.</p> : (
        <Loading loaded={sub}>
          {(s: any) => (
            <dl class="facts">
              <dt>Plan</dt><dd>{s.plan}</dd>
              <dt>Status</dt><dd><Status value={s.status} /></dd>
              <dt>Period</dt><dd>{when(s.currentPeriodStart)} – {when(s.currentPeriodEnd)}</dd>
              {s.cancelAtPeriodEnd && <><dt>Ends</dt><dd>at the period's end</dd></>}
              {s.pastDueSince && <><dt>Past due since</dt><dd>{when(s.pastDueSince)}</dd></>}
            </dl>
          )}
        </Loading>
      )}
      {me.role === 'owner' && (choices.length > 0 || paying) && (
        <form class="inline" onSubmit={(e) => { e.preventDefault(); void act.run('POST', '/api/billing/subscription', { tenantId: tenant.id, plan }); }}>
          {choices.length > 0 && <Select label="Paid plan" options={choices.map((p): [string, string] => [p, p])} value={plan} onChange={(e) => setPlan(e.currentTarget.value)} />}
          {choices.length > 0 && <Button type="submit" disabled={act.busy}>{paying ? 'Change plan' : 'Subscribe'}</Button>}
          {paying && !sub.data.cancelAtPeriodEnd && (
            <Button kind="danger" disabled={act.busy} onClick={() => confirm('Cancel the subscription at the end of the period?') && act.run('POST', `${path}/cancel`, { atPeriodEnd: true })}>Cancel subscription</Button>
          )}
        </form>
      )}
      <ErrorNote error={act.error} />
    </Card>
  );
}

export function Usage({ tenantId }: { tenantId: string }) {
  const usage = useGet(`/api/billing/usage/${encodeURIComponent(tenantId)}`);
  return (
    <Card title="Usage this period">
      <Loading loaded={usage}>
        {(u: any) => (
          <>
            <div class="stats">
              <p><span>Spent (credits)</span><strong class="cost">{micro(u.spentMicroUnits)}</strong></p>
              <p><span>Reported to billing</span><strong class="cost">{micro(u.reportedMicroUnits)}</strong></p>
            </div>
            <p class="muted">{when(u.periodStart)} – {when(u.periodEnd)}</p>
            {u.days.length === 0 ? <Empty>Nothing spent this period.</Empty> : (
              <Table caption="Credits spent per day" head={['Day', 'Credits']}>
                {u.days.map((d: any) => <tr key={d.date}><td>{d.date}</td><td class="cost">{micro(d.microUnits)}</td></tr>)}
              </Table>
            )}
          </>
        )}
      </Loading>
    </Card>
  );
}

export function Invoices({ tenantId }: { tenantId: string }) {
  const invoices = useGet(`/api/billing/invoices/${encodeURIComponent(tenantId)}`);
  return (
    <Card title="Invoices">
      <Loading loaded={invoices}>
        {(data: any) => data.invoices.length === 0 ? <Empty>No invoices yet.</Empty> : (
          <Table caption="Invoices" head={['Number', 'Status', 'Amount due', 'Paid', 'Date']}>
            {data.invoices.map((inv: any) => (
              <tr key={inv.id}>
                <td>{/^https:\/\//.test(inv.hostedInvoiceUrl ?? '') ? <a href={inv.hostedInvoiceUrl} target="_blank" rel="noopener noreferrer">{inv.number ?? inv.id}</a> : inv.number ?? inv.id}</td>
                <td><Status value={inv.status} /></td>
                <td class="cost">{money(inv.amountDue, inv.currency)}</td>
                <td class="cost">{money(inv.amountPaid, inv.currency)}</td>
                <td>{when(inv.createdAt)}</td>
              </tr>
            ))}
          </Table>
        )}
      </Loading>
    </Card>
  );
}

export function Calculator() {
  const [credits, setCredits] = useState('100');
  const [asked, setAsked] = useState<string | null>('100');
  const price = useGet(asked === null ? null : `/api/billing/calculate${q({ credits: asked })}`);
  return (
    <Card title="Price calculator">
      <form class="inline" onSubmit={(e) => { e.preventDefault(); setAsked(credits.trim()); }}>
        <Field label="Credits" type="number" min={0} step={1} inputMode="numeric" value={credits} onInput={(e) => setCredits(e.currentTarget.value)} />
        <Button type="submit">Calculate</Button>
      </form>
      <Loading loaded={price}>
        {(p: any) => (
          <p role="status"><strong>{p.credits.toLocaleString('en')}</strong> credits on the {p.plan} plan cost <strong>{money(p.amountCents, p.currency)}</strong> ({money(p.unitAmountCents, p.currency)} each).</p>
        )}
      </Loading>
    </Card>
  );
}
