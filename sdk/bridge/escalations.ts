// Approvals in chat: while a bridged turn runs, the session's pending escalation-queue entries (tool uses
// waiting for an owner) are shown once each in the conversation, with buttons that resolve them.
import type { CallAs, HostClient } from '../host-client.js';
import { sessionsClient, type EscalationEntry as Escalation } from '../../extensions/sessions/contract.js';

export type { Escalation };

const POLL_MS = 300;

/** Polls until `signal` fires; `show` failures are reported through `onError` and retried next poll. */
export function watchEscalations(host: HostClient, as: CallAs, sessionId: () => string | undefined, show: (entry: Escalation) => Promise<void>, signal: AbortSignal, onError: (err: unknown) => void): Promise<void> {
  const shown = new Set<string>();
  return (async () => {
    while (!signal.aborted) {
      const id = sessionId();
      if (id) {
        try {
          const reply = await sessionsClient(host, as).escalations({ sessionId: id });
          for (const entry of reply.status === 200 && reply.body ? reply.body.entries : []) {
            if (shown.has(entry.id)) continue;
            await show(entry);
            shown.add(entry.id);
          }
        } catch (err) {
          onError(err);
        }
      }
      await new Promise<void>((resolve) => {
        // The listener goes when the wait ends, so a long turn does not pile them up on the signal.
        const done = () => (clearTimeout(timer), signal.removeEventListener('abort', done), resolve());
        const timer = setTimeout(done, POLL_MS);
        signal.addEventListener('abort', done, { once: true });
      });
    }
  })();
}

export const describeEscalation = (e: Escalation): string => `Approval needed: the agent wants to use ${e.toolName} with ${JSON.stringify(e.input).slice(0, 500)}`;

export interface Resolution {
  /** Settled (resolved now, or already): the buttons can go. False: it failed, the buttons stay for another try. */
  final: boolean;
  /** The sentence to show in chat. */
  text: string;
}

/** Resolves an entry as the tenant; answers the sentence to show in chat. */
export async function resolveEscalation(host: HostClient, tenantId: string, id: string, behavior: 'allow' | 'deny', who: string): Promise<string> {
  return (await settleEscalation(host, tenantId, id, behavior, who)).text;
}

/** Resolves an entry as the tenant, telling whether it is settled (the buttons can go). */
export async function settleEscalation(host: HostClient, tenantId: string, id: string, behavior: 'allow' | 'deny', who: string): Promise<Resolution> {
  let reply: { status: number; body: { error?: string } | null };
  try {
    reply = await sessionsClient(host, { tenantId }).resolveEscalation(id, behavior);
  } catch (err) {
    return { final: false, text: `Could not resolve the approval: ${(err as Error).message}. Try again.` };
  }
  if (reply.status === 200) return { final: true, text: `${behavior === 'allow' ? 'Allowed' : 'Denied'} by ${who}.` };
  if (reply.status === 409) return { final: true, text: `Already resolved: ${reply.body?.error ?? 'conflict'}.` };
  return { final: false, text: `Could not resolve the approval: ${reply.body?.error ?? `status ${reply.status}`}. Try again.` };
}
