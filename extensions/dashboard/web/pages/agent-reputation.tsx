// An agent's reputation: score (0–100) from its history, identity tier, recompute; and its signed
// attestation (the Ed25519 envelope, shown as JSON and copyable) to hand to another server.
import { useState } from 'preact/hooks';
import { api } from '../api.js';
import type { Me } from '../app.js';
import { Button, Card, ErrorNote, Select } from '../components/ui.js';
import { useAction, useGet } from '../hooks.js';

const TIERS: Array<[string, string]> = [['unverified', 'unverified'], ['basic', 'basic'], ['verified', 'verified'], ['trusted', 'trusted']];

export function AgentReputation({ agentId, me }: { agentId: string; me: Me }) {
  const id = encodeURIComponent(agentId);
  const score = useGet(`/api/reputation/scores/${id}`);
  const identity = useGet(`/api/reputation/identity/${id}`);
  const attestation = useGet(`/api/reputation/attestation/${id}`);
  const [tier, setTier] = useState<string | null>(null);
  const [copied, setCopied] = useState(false);
  const act = useAction(async (method: string, path: string, body: unknown) => {
    await api(method, path, body);
    score.reload();
    identity.reload();
    attestation.reload();
  });
  const s = score.data;
  const currentTier: string = identity.data?.tier ?? 'unverified';
  const envelope = attestation.data?.attestation;
  const text = envelope ? JSON.stringify(envelope, null, 2) : '';
  const copy = async () => {
    await navigator.clipboard.writeText(text);
    setCopied(true);
  };
  return (
    <Card title="Reputation">
      {s ? (
        <dl class="facts">
          <dt>Score</dt><dd><strong class="big">{Number(s.score).toFixed(1)}</strong> / 100</dd>
          <dt>Events</dt><dd>{s.eventCount} ({s.components?.positive ?? 0} good, {s.components?.negative ?? 0} bad)</dd>
          <dt>Tier</dt><dd>{currentTier}</dd>
          <dt>Computed</dt><dd>{s.computedAt ? new Date(s.computedAt).toLocaleString() : '—'}</dd>
        </dl>
      ) : <ErrorNote error={score.error?.message} />}
      {me.role !== 'viewer' && (
        <div class="inline">
          <Button kind="plain" disabled={act.busy} onClick={() => act.run('POST', `/api/reputation/scores/${id}`, {})}>Recompute</Button>
          <Select label="Identity tier" options={TIERS} value={tier ?? currentTier} onChange={(e) => setTier(e.currentTarget.value)} />
          <Button kind="plain" disabled={act.busy || (tier ?? currentTier) === currentTier} onClick={() => act.run('PUT', `/api/reputation/identity/${id}`, { tier })}>Set tier</Button>
          <Button disabled={act.busy} onClick={() => act.run('POST', `/api/reputation/attestation/${id}`, {})}>Sign an attestation</Button>
        </div>
      )}
      <ErrorNote error={act.error} />
      {envelope && (
        <>
          <h3>Attestation</h3>
          <p class="muted">Signed {new Date(attestation.data.statement.issuedAt).toLocaleString()}, valid until {new Date(attestation.data.statement.expiresAt).toLocaleString()}; verify it with <code>/.well-known/roost-attestation-key</code>.</p>
          <pre class="attestation" tabIndex={0} aria-label="Signed attestation (JSON)">{text}</pre>
          <Button kind="plain" onClick={copy}>Copy attestation</Button>
          {copied && <span role="status" class="ok-text"> Copied.</span>}
        </>
      )}
    </Card>
  );
}
