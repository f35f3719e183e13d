// Sign-in for a remote user (or when ROOST_LOCAL_AUTH=required): an API key, or one got through the
// device flow (RFC 8628) approved on another device; either is checked against GET /api/tenants/me
// before it is kept (in sessionStorage only).
import { useState } from 'preact/hooks';
import { api, setApiKey } from '../api.js';
import { DeviceSignIn } from '../components/device-signin.js';
import { Button, ErrorNote, Field } from '../components/ui.js';

export function SignIn({ problem, onSignedIn }: { problem: string | null; onSignedIn: () => void }) {
  const [key, setKey] = useState('');
  const [error, setError] = useState<string | null>(problem);
  const [busy, setBusy] = useState(false);
  const keep = async (candidate: string) => {
    await api('GET', '/api/tenants/me', undefined, candidate);
    setApiKey(candidate);
    onSignedIn();
  };
  const submit = async (event: Event) => {
    event.preventDefault();
    setBusy(true);
    setError(null);
    try {
      await keep(key.trim());
    } catch (err) {
      setError(err instanceof Error ? err.message : String(err));
    } finally {
      setBusy(false);
    }
  };
  return (
    <main id="main" class="signin">
      <div class="card">
        <form onSubmit={submit} aria-labelledby="signin-title">
          <h1 id="signin-title">Sign in to Roost</h1>
          <p>On the server's own machine the owner is signed in without a key. From anywhere else, paste an API key (it starts with <code>rk_</code>), or sign in with a device where you are signed in already. It is kept for this tab only.</p>
          <Field label="API key" type="password" autocomplete="off" required value={key} onInput={(e) => setKey(e.currentTarget.value)} />
          <ErrorNote error={error} />
          <Button type="submit" disabled={busy || key.trim() === ''}>Sign in</Button>
        </form>
        <DeviceSignIn onKey={keep} />
      </div>
    </main>
  );
}
