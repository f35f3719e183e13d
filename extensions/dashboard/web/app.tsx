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

  // Signing in asks the server who the caller is. 401/403 mean a key is needed or was refused: the sign-in
  // page. Anything else (the server restarting, 503 "cannot now", a dropped connection) is not an answer
  // about the key: say so and ask again, backing off to every 10 s, instead of asking for a key.
  const [unanswered, setUnanswered] = useState<string | null>(null);
  const identify = (attempt = 0): Promise<void> =>
    api<Me>('GET', '/api/tenants/me').then(
      (found) => {
        setUnanswered(null);
        setMe(found);
        socket.start();
      },
      (err: ApiError) => {
        if (err.status !== 401 && err.status !== 403) {
          setUnanswered(err.message);
          setTimeout(() => void identify(attempt + 1), Math.min(10_000, 500 * 2 ** attempt));
          return;
        }
        setUnanswered(null);
        setApiKey(null);
        setProblem(err.status === 403 ? err.message : null);
        setMe(null);
      },
    );

  useEffect(() => void identify(), []);
  useEffect(() => {
    // Move focus to the new page's heading, so keyboard and screen-reader users land on it.
    document.getElementById('page-title')?.focus({ preventScroll: true });
  }, [route.join('/')]);

  if (me === undefined) {
    return (
      <p class="boot" role="status" aria-busy="true">
        {unanswered ? `The server cannot answer now (${unanswered}); trying again…` : 'Signing in…'}
      </p>
    );
  }
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
