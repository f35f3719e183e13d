// "Allow an MCP client": the consent page of the MCP sign-in (extensions/mcp-auth). A remote MCP client
// (Claude Code, MCP Inspector, mcp-remote) sent the browser here through /oauth/authorize; the signed-in
// person sees which client asks, where it will be sent back, and allows it with a role no higher than
// their own (its tokens reach /mcp only, in this tenant), or denies it. Either way the browser goes back
// to the client (POST /api/oauth/requests/:id answers where).
import { useState } from 'preact/hooks';
import { api } from '../api.js';
import type { Me } from '../app.js';
import { Button, Card, ErrorNote, Loading, Page, Select } from '../components/ui.js';
import { useAction, useGet } from '../hooks.js';

const ROLES: Me['role'][] = ['viewer', 'operator', 'owner'];

interface SignInRequest {
  clientId: string;
  clientName: string;
  clientUri: string | null;
  redirectUri: string;
  resource: string;
  expiresAt: string;
}

export function McpAuthorize({ me, id }: { me: Me; id?: string }) {
  const loaded = useGet<SignInRequest>(id ? `/api/oauth/requests/${encodeURIComponent(id)}` : null);
  const [role, setRole] = useState<string>(me.role);
  const [leaving, setLeaving] = useState<string | null>(null);
  const act = useAction(async (action: 'allow' | 'deny') => {
    const result = await api<{ redirectTo: string }>('POST', `/api/oauth/requests/${encodeURIComponent(id!)}`, action === 'allow' ? { action, role } : { action });
    setLeaving(action === 'allow' ? 'Allowed: returning to the client…' : 'Denied: returning to the client…');
    window.location.assign(result.redirectTo);
  });
  const allowed = ROLES.slice(0, ROLES.indexOf(me.role) + 1);
  return (
    <Page title="Allow an MCP client">
      <Card>
        {!id ? <p>No sign-in request is named here: start the sign-in from the MCP client.</p> : (
          <Loading loaded={loaded}>
            {(request) => (
              <>
                <p><strong>{request.clientName}</strong> asks to use Roost's MCP tools as you, in the tenant <strong>{me.id}</strong>.</p>
                <dl class="facts">
                  <dt>Returns to</dt><dd><code>{request.redirectUri}</code></dd>
                  <dt>For</dt><dd><code>{request.resource}</code></dd>
                  {request.clientUri && <><dt>Client's site</dt><dd><code>{request.clientUri}</code></dd></>}
                </dl>
                <p>Allow it only if you started this sign-in yourself. You can revoke it later by signing the client out.</p>
                <form class="grid" onSubmit={(event) => { event.preventDefault(); void act.run('allow'); }}>
                  <Select label="Role for the client" options={allowed.map((r) => [r, r])} value={role} onChange={(e) => setRole(e.currentTarget.value)} />
                  <div class="inline">
                    <Button type="submit" disabled={act.busy || leaving !== null}>Allow</Button>
                    <Button kind="danger" disabled={act.busy || leaving !== null} onClick={() => act.run('deny')}>Deny</Button>
                  </div>
                </form>
              </>
            )}
          </Loading>
        )}
        <ErrorNote error={act.error} />
        {leaving && <p class="ok-text" role="status">{leaving}</p>}
      </Card>
    </Page>
  );
}
