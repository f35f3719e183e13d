// The frame: who is signed in (GET /api/tenants/me: a local owner needs no key), the navigation, the
// theme, and the page the hash route names.
import { useEffect, useState } from 'preact/hooks';
import { api, ApiError, setApiKey } from './api.js';
import { useGet, useRoute } from './hooks.js';
import { socket } from './ws.js';
import { SignIn } from './pages/signin.js';
import { pageFor, NAV } from './routes.js';
import { ThemeToggle } from './components/theme.js';
import { BillingStatus } from './pages/billing.js';

export interface Me {
  id: string;
  org: string;
  role: 'owner' | 'operator' | 'viewer';
  keyHash: string | null;
  billingStatus: 'none' | 'active' | 'past_due' | 'canceled';
  readOnly: boolean;
  readOnlyAt: string | null;
}

export function App() {
  const [me, setMe] = useState<Me | null | undefined>(undefined);
  const [problem, setProblem] = useState<string | null>(null);
  const route = useRoute();
  // Work tasks are an optional extension: their section shows only when the server answers for them.
  const workTasks = useGet(me ? '/api/work-tasks?limit=1' : null);

  const identify = () =>
    api<Me>('GET', '/api/tenants/me').then(
      (found) => {
        setMe(found);
        socket.start();
      },
      (err: ApiError) => {
        // 401: a key is needed (a remote user, or ROOST_LOCAL_AUTH=required); 403: the stored key was refused.
        if (err.status === 401 || err.status === 403) setApiKey(null);
        setProblem(err.status === 403 ? err.message : null);
        setMe(null);
      },
    );

  useEffect(() => void identify(), []);
  useEffect(() => {
    // Move focus to the new page's heading, so keyboard and screen-reader users land on it.
    document.getElementById('page-title')?.focus({ preventScroll: true });
  }, [route.join('/')]);

  if (me === undefined) return <p class="boot" aria-busy="true">Signing in…</p>;
  if (me === null) return <SignIn problem={problem} onSignedIn={identify} />;

  const signOut = () => {
    setApiKey(null);
    socket.stop();
    setMe(null);
  };
  const current = route[0] ?? 'sessions';
  return (
    <div class="shell">
      <a class="skip" href="#main">Skip to content</a>
      <header class="top">
        <a class="brand" href="#/sessions">Roost</a>
        <span class="who" title={me.keyHash ? `key ${me.keyHash.slice(0, 12)}` : 'local owner'}>
          {me.org} · {me.role}{me.keyHash ? '' : ' (local)'}
        </span>
        <ThemeToggle />
        {me.keyHash && <button type="button" class="btn btn-plain" onClick={signOut}>Sign out</button>}
      </header>
      <nav class="side" aria-label="Sections">
        <ul>
          {NAV.filter(([path]) => path !== 'work-tasks' || workTasks.data !== undefined).map(([path, label]) => (
            <li key={path}>
              <a href={`#/${path}`} aria-current={current === path ? 'page' : undefined}>{label}</a>
            </li>
          ))}
        </ul>
      </nav>
      <main id="main">
        {current !== 'billing' && <BillingStatus tenant={me} />}
        {pageFor(route, me)}
      </main>
    </div>
  );
}
