// Sign-in for a remote user (or when ROOST_LOCAL_AUTH=required): an API key, checked against
// GET /api/tenants/me before it is kept (in sessionStorage only).
import { useState } from 'preact/hooks';
import { api, setApiKey } from '../api.js';
import { Button, ErrorNote, Field } from '../components/ui.js';

export function SignIn({ problem, onSignedIn }: { problem: string | null; onSignedIn: () => void }) {
  const [key, setKey] = useState('');
  const [error, setError] = useState<string | null>(problem);
  const [busy, setBusy] = useState(false);
  const submit = async (event: Event) => {
    event.preventDefault();
    setBusy(true);
    setError(null);
    try {
      await api('GET', '/api/tenants/me', undefined, key.trim());
      setApiKey(key.trim());
      onSignedIn();
    } catch (err) {
      setError(err instanceof Error ? err.message : String(err));
    } finally {
      setBusy(false);
    }
  };
  return (
    <main id="main" class="signin">
      <form class="card" onSubmit={submit} aria-labelledby="signin-title">
        <h1 id="signin-title">Sign in to Roost</h1>
        <p>On the server's own machine the owner is signed in without a key. From anywhere else, paste an API key (it starts with <code>rk_</code>). It is kept for this tab only.</p>
        <Field label="API key" type="password" autocomplete="off" required value={key} onInput={(e) => setKey(e.currentTarget.value)} />
        <ErrorNote error={error} />
        <Button type="submit" disabled={busy || key.trim() === ''}>Sign in</Button>
      </form>
    </main>
  );
}
