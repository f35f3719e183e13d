// An agent's wallet: balance, funding, the daily spending cap and what it spent per day.
import { useState } from 'preact/hooks';
import { api } from '../api.js';
import { Button, Card, ErrorNote, Field, Loading, micro } from '../components/ui.js';
import { useAction, useGet } from '../hooks.js';

const toMicro = (text: string): number => Math.round(Number(text) * 1_000_000);

export function AgentMoney({ agentId, canFund }: { agentId: string; canFund: boolean }) {
  const base = `/api/agents/${encodeURIComponent(agentId)}`;
  const balance = useGet(`${base}/balance`);
  const spending = useGet(`${base}/spending?days=30`);
  const [amount, setAmount] = useState('');
  const [cap, setCap] = useState('');
  const fund = useAction(async () => {
    await api('POST', `${base}/fund`, { microUnits: toMicro(amount) });
    setAmount('');
    balance.reload();
  });
  const setLimit = useAction(async () => {
    await api('PUT', `${base}/spending-cap`, { dailyLimit: toMicro(cap) });
    setCap('');
    spending.reload();
  });
  const removeLimit = useAction(async () => {
    await api('DELETE', `${base}/spending-cap`);
    spending.reload();
  });
  const valid = (text: string) => text.trim() !== '' && Number.isFinite(Number(text)) && Number(text) >= 0;
  return (
    <Card title="Balance and spending">
      <Loading loaded={balance}>
        {(b: any) => <p class="big">Balance: <strong>{micro(b.balance)}</strong> <small>(reserved {micro(b.reserved)})</small></p>}
      </Loading>
      <Loading loaded={spending}>
        {(s: any) => (
          <p>
            Spent today: {micro(s.today?.total)} · Daily cap: {s.cap ? `${micro(s.cap.dailyLimit)} (left ${micro(s.cap.remaining)})` : 'none'}
          </p>
        )}
      </Loading>
      {canFund && (
        <div class="grid">
          <form class="inline" onSubmit={(e) => { e.preventDefault(); void fund.run(); }}>
            <Field label="Add credits" type="number" min="0" step="any" value={amount} onInput={(e) => setAmount(e.currentTarget.value)} />
            <Button type="submit" disabled={fund.busy || !valid(amount)}>Fund</Button>
          </form>
          <form class="inline" onSubmit={(e) => { e.preventDefault(); void setLimit.run(); }}>
            <Field label="Daily spending cap" type="number" min="0" step="any" value={cap} onInput={(e) => setCap(e.currentTarget.value)} />
            <Button type="submit" disabled={setLimit.busy || !valid(cap)}>Set cap</Button>
            {spending.data?.cap && <Button kind="plain" disabled={removeLimit.busy} onClick={() => removeLimit.run()}>Remove cap</Button>}
          </form>
        </div>
      )}
      <ErrorNote error={fund.error ?? setLimit.error ?? removeLimit.error} />
    </Card>
  );
}
