// Billing and plan: the tenant's plan, its limits and what is in use, the billing status (past due and
// read-only shown first and loudly), then the subscription, usage, invoices and the price calculator.
// Without billing configured the billing routes answer 503 naming the variable: that sentence is shown.
import { listOf } from '../api.js';
import type { Me } from '../app.js';
import { Card, ErrorNote, Loading, Page, Table, when } from '../components/ui.js';
import { useGet } from '../hooks.js';
import { Calculator, Invoices, Subscription, Usage } from './billing-parts.js';

export interface TenantPlan {
  id: string;
  org: string;
  plan: string;
  limits: Record<string, number>;
  billingStatus: 'none' | 'active' | 'past_due' | 'canceled';
  readOnly: boolean;
  readOnlyAt: string | null;
}

const LIMITS: Array<[string, string]> = [
  ['agents', 'Agents'], ['projects', 'Projects'], ['concurrentSessions', 'Sessions at once'], ['members', 'Members (keys)'], ['creditsPerMonth', 'Credits added per month'],
];

export function BillingStatus({ tenant }: { tenant: Pick<TenantPlan, 'billingStatus' | 'readOnly' | 'readOnlyAt'> }) {
  if (tenant.readOnly) {
    return <p class="banner banner-bad" role="alert"><strong>Read-only:</strong> the payment is overdue and the grace period ended {when(tenant.readOnlyAt)}. Everything can be read, nothing changed, until a payment goes through.</p>;
  }
  if (tenant.billingStatus === 'past_due') {
    return <p class="banner banner-warn" role="alert"><strong>Payment past due:</strong> the tenant becomes read-only {when(tenant.readOnlyAt)} unless a payment goes through.</p>;
  }
  return null;
}

export function Billing({ me }: { me: Me }) {
  const tenant = useGet<TenantPlan>('/api/tenants/me');
  // What is in use, from the lists this role may read (members need an operator).
  const agents = useGet('/api/agents');
  const projects = useGet('/api/projects');
  const members = useGet(me.role === 'viewer' ? null : '/api/tenants/me/members');
  const inUse: Record<string, number | undefined> = {
    agents: agents.data && listOf(agents.data).length,
    projects: projects.data && listOf(projects.data).length,
    members: members.data && listOf(members.data, 'members').filter((m: any) => !m.expiresAt || Date.parse(m.expiresAt) > Date.now()).length,
  };
  return (
    <Page title="Billing and plan">
      <Loading loaded={tenant}>
        {(t) => (
          <>
            <BillingStatus tenant={t} />
            <Card title="Plan">
              <dl class="facts">
                <dt>Tenant</dt><dd>{t.org} (<code>{t.id}</code>)</dd>
                <dt>Plan</dt><dd><strong class="big">{t.plan}</strong></dd>
                <dt>Billing status</dt><dd>{t.billingStatus.replace('_', ' ')}{t.readOnly ? ' · read-only' : ''}</dd>
              </dl>
              <Table caption="Plan limits and use" head={['Limit', 'In use', 'Allowed']}>
                {LIMITS.map(([key, label]) => (
                  <tr key={key}>
                    <th scope="row">{label}</th>
                    <td>{inUse[key] ?? '—'}</td>
                    <td>{t.limits[key]?.toLocaleString('en') ?? '—'}</td>
                  </tr>
                ))}
              </Table>
              <ErrorNote error={agents.error?.message ?? projects.error?.message} />
            </Card>
            <Subscription tenant={t} me={me} onChange={tenant.reload} />
            <Usage tenantId={t.id} />
            <Invoices tenantId={t.id} />
            <Calculator />
          </>
        )}
      </Loading>
    </Page>
  );
}
