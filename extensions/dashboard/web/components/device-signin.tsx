// "Sign in with another device" (RFC 8628): shows the user code and where to approve it, polls until a
// person approves or denies it there, and hands the key over exactly as the API-key form does.
import { useEffect, useRef, useState } from 'preact/hooks';
import { pollForKey, requestDeviceCode, safeHref, type DeviceCode, type DeviceIo } from '../device-flow.js';
import { Button, ErrorNote } from './ui.js';

type State = { step: 'idle' } | { step: 'waiting'; code: DeviceCode; interval: number } | { step: 'ended'; message: string };

export function DeviceSignIn({ onKey }: { onKey: (key: string) => Promise<void> }) {
  const [state, setState] = useState<State>({ step: 'idle' });
  const [error, setError] = useState<string | null>(null);
  const abandon = useRef<AbortController | null>(null);
  useEffect(() => () => abandon.current?.abort(), []);

  const start = async () => {
    abandon.current?.abort();
    const stop = new AbortController();
    abandon.current = stop;
    setError(null);
    const io: DeviceIo = {
      fetch: (input, init) => fetch(input, { ...init, signal: stop.signal }),
      wait: (ms) => new Promise((resolve, reject) => {
        const timer = setTimeout(resolve, ms);
        stop.signal.addEventListener('abort', () => { clearTimeout(timer); reject(new Error('abandoned')); }, { once: true });
      }),
      now: () => Date.now(),
      onInterval: (interval) => setState((s) => (s.step === 'waiting' ? { ...s, interval } : s)),
    };
    try {
      const code = await requestDeviceCode(io);
      setState({ step: 'waiting', code, interval: code.interval });
      const outcome = await pollForKey(io, code);
      if (outcome.kind === 'key') return await onKey(outcome.key);
      setState({ step: 'ended', message: outcome.kind === 'denied'
        ? 'The sign-in was denied on the other device. Start again to get a new code.'
        : outcome.kind === 'expired' ? 'The code expired before anyone approved it. Start again to get a new code.'
        : `The sign-in failed: ${outcome.message}` });
    } catch (err) {
      if (stop.signal.aborted) return;
      setError(err instanceof Error ? err.message : String(err));
      setState({ step: 'idle' });
    }
  };
  const cancel = () => {
    abandon.current?.abort();
    setState({ step: 'idle' });
  };

  if (state.step !== 'waiting') {
    return (
      <div class="device">
        {state.step === 'ended' && <p class="note error" role="alert">{state.message}</p>}
        <ErrorNote error={error} />
        <Button kind="plain" onClick={start}>Sign in with another device</Button>
      </div>
    );
  }
  const { code } = state;
  const approveHere = `${location.origin}/ui/#/device/${encodeURIComponent(code.user_code)}`;
  return (
    <section class="device" aria-labelledby="device-title">
      <h2 id="device-title">Approve this sign-in elsewhere</h2>
      <p>On a device where you are signed in, open the dashboard's <strong>Approve a device</strong> page, or the link below, and enter this code:</p>
      <p class="user-code"><span class="sr-only">User code: </span><output>{code.user_code}</output></p>
      <ul class="device-links">
        {safeHref(code.verification_uri) && <li><a href={safeHref(code.verification_uri)} target="_blank" rel="noopener noreferrer">{code.verification_uri}</a></li>}
        {safeHref(code.verification_uri_complete) && <li><a href={safeHref(code.verification_uri_complete)} target="_blank" rel="noopener noreferrer">Open with the code filled in</a></li>}
        <li><a href={approveHere} target="_blank" rel="noopener noreferrer">Approve in the dashboard</a></li>
      </ul>
      <p role="status" aria-live="polite" class="muted">Waiting for approval… checking every {state.interval} s; the code lasts {Math.round(code.expires_in / 60)} min.</p>
      <Button kind="plain" onClick={cancel}>Cancel</Button>
    </section>
  );
}
