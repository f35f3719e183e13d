// "Approve a device": a signed-in person enters (or checks) the user code another device shows and
// approves it, with a role no higher than their own, or denies it (POST /api/auth/device/authorize).
import { useState } from 'preact/hooks';
import { api } from '../api.js';
import type { Me } from '../app.js';
import { Button, Card, ErrorNote, Field, Page, Select } from '../components/ui.js';
import { useAction } from '../hooks.js';

const ROLES: Me['role'][] = ['viewer', 'operator', 'owner'];

export function DeviceApprove({ me, code: given }: { me: Me; code?: string }) {
  const [code, setCode] = useState(given ?? '');
  const [role, setRole] = useState<string>(me.role);
  const [done, setDone] = useState<string | null>(null);
  const act = useAction(async (action: 'approve' | 'deny') => {
    setDone(null);
    const body = action === 'approve' ? { user_code: code.trim(), action, role } : { user_code: code.trim(), action };
    const result = await api('POST', '/api/auth/device/authorize', body);
    setDone(result.status === 'approved'
      ? `Approved: ${result.clientId} is signed in to ${result.tenantId} as ${result.role}.`
      : `Denied: ${result.clientId} was refused.`);
    setCode('');
  });
  const allowed = ROLES.slice(0, ROLES.indexOf(me.role) + 1);
  const submit = (event: Event) => {
    event.preventDefault();
    void act.run('approve');
  };
  return (
    <Page title="Approve a device">
      <Card>
        <p>Another device (the <code>roost login</code> command, a dashboard in another browser) shows a code such as <code>WDJB-MJHT</code>. Approve it only if you started that sign-in yourself: the device gets a key of this tenant.</p>
        {me.role === 'viewer' ? (
          <p class="note" role="note">A viewer cannot approve devices: ask an operator or an owner of the tenant.</p>
        ) : (
          <form class="grid" onSubmit={submit}>
            <Field label="User code" required autocomplete="off" autocapitalize="characters" spellcheck={false} maxLength={16} value={code} onInput={(e) => setCode(e.currentTarget.value)} />
            <Select label="Role for the device" options={allowed.map((r) => [r, r])} value={role} onChange={(e) => setRole(e.currentTarget.value)} />
            <div class="inline">
              <Button type="submit" disabled={act.busy || code.trim() === ''}>Approve</Button>
              <Button kind="danger" disabled={act.busy || code.trim() === ''} onClick={() => act.run('deny')}>Deny</Button>
            </div>
          </form>
        )}
        <ErrorNote error={act.error} />
        {done && <p class="ok-text" role="status">{done}</p>}
      </Card>
    </Page>
  );
}
