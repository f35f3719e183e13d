// Small hooks the pages share: the current hash route, a GET that reloads on demand, and the
// WebSocket's messages.
import { useCallback, useEffect, useRef, useState } from 'preact/hooks';
import { api, ApiError } from './api.js';
import { socket, type ServerMessage } from './ws.js';

/** `#/sessions/abc` → ['sessions', 'abc']. */
export function useRoute(): string[] {
  const read = () => location.hash.replace(/^#\/?/, '').split('?')[0]!.split('/').filter(Boolean).map(decodeURIComponent);
  const [route, setRoute] = useState(read);
  useEffect(() => {
    const changed = () => setRoute(read());
    addEventListener('hashchange', changed);
    return () => removeEventListener('hashchange', changed);
  }, []);
  return route;
}

export interface Loaded<T> {
  data: T | undefined;
  error: ApiError | undefined;
  loading: boolean;
  reload(): void;
}

/** GETs `path` (none while it is null) and again on reload() or every `pollMs`. A read the API serves
 *  as a POST with a query body (chainchat's conversations) passes that body as `query`. */
export function useGet<T = any>(path: string | null, pollMs?: number, query?: unknown): Loaded<T> {
  const [state, setState] = useState<{ data?: T; error?: ApiError; loading: boolean }>({ loading: path !== null });
  const [tick, setTick] = useState(0);
  const reload = useCallback(() => setTick((t) => t + 1), []);
  const body = query === undefined ? undefined : JSON.stringify(query);
  useEffect(() => {
    if (path === null) return;
    let live = true;
    setState((s) => ({ ...s, loading: true }));
    (body === undefined ? api<T>('GET', path) : api<T>('POST', path, JSON.parse(body))).then(
      (data) => live && setState({ data, loading: false }),
      (error: ApiError) => live && setState({ error, loading: false }),
    );
    return () => {
      live = false;
    };
  }, [path, body, tick]);
  useEffect(() => {
    if (!pollMs || path === null) return;
    const timer = setInterval(reload, pollMs);
    return () => clearInterval(timer);
  }, [pollMs, path]);
  return { data: state.data, error: state.error, loading: state.loading, reload };
}

/** Calls `listener` with every WebSocket message while the component is shown. */
export function useSocket(listener: (message: ServerMessage) => void): void {
  const ref = useRef(listener);
  ref.current = listener;
  useEffect(() => socket.on((m) => ref.current(m)), []);
}

/** Runs an action, keeping its pending state and error for the form that started it. */
export function useAction<A extends unknown[]>(action: (...args: A) => Promise<unknown>): { run: (...args: A) => Promise<boolean>; busy: boolean; error: string | null } {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const run = async (...args: A) => {
    setBusy(true);
    setError(null);
    try {
      await action(...args);
      return true;
    } catch (err) {
      setError(err instanceof Error ? err.message : String(err));
      return false;
    } finally {
      setBusy(false);
    }
  };
  return { run, busy, error };
}
