// Paying for turns through the credits extension's internal routes: reserve before a turn (the amount
// is the tenant's configured reservation per turn), commit the real token usage after it (credits
// prices it from the tenant's price table and answers what it charged), release when the turn did
// not happen. A server without the credits extension bills nothing (said once in the log); credits
// that are there but failing pause the session.
import { RoostError } from '../../protocol/errors.js';
import type { HostClient } from '../../sdk/host-client.js';
import { CREDITS_ROUTES, CreditsClient } from '../credits/contract.js';

export interface Usage {
  inputTokens: number;
  outputTokens: number;
  provider: string;
  model: string;
}

/** Codes that pause a session until credits come back. */
export const CREDIT_CODES = new Set(['INSUFFICIENT_CREDITS', 'DAILY_CAP_REACHED', 'CREDITS_UNAVAILABLE']);

export class Credits {
  private absentNoted = false;

  private readonly credits: CreditsClient;

  constructor(private readonly host: HostClient) {
    this.credits = new CreditsClient(host);
  }

  /** A reservation id; null when this server has no credits extension; throws a credit code otherwise. */
  async reserve(tenantId: string, turn: { agentId: string; sessionId: string; provider: string; model: string }): Promise<string | null> {
    const reply = await this.send(() => this.credits.reserve(turn, { tenantId }));
    if (reply.status === 201 || reply.status === 200) {
      const id = (reply.body as { reservationId?: unknown } | null)?.reservationId;
      if (typeof id === 'string') return id;
      throw new RoostError('CREDITS_UNAVAILABLE', 'the credits extension answered a reservation without reservationId', { status: 503 });
    }
    if (this.absent(reply)) return null;
    const body = reply.body as { code?: unknown; error?: unknown } | null;
    if (reply.status === 409 && typeof body?.code === 'string') {
      throw new RoostError(body.code, typeof body.error === 'string' ? body.error : `credits refused the turn (${body.code})`, { status: 409 });
    }
    throw new RoostError('CREDITS_UNAVAILABLE', `credits could not reserve a turn (status ${reply.status}${typeof body?.error === 'string' ? `: ${body.error}` : ''})`, { status: 503 });
  }

  /**
   * Takes over a reservation made ahead of the turn (a council's stage): false when this server has no
   * credits extension (the turn is then free anyway); the credits extension's refusal otherwise.
   */
  async claim(tenantId: string, reservationId: string, claim: { sessionId: string; agentId: string }): Promise<boolean> {
    const reply = await this.send(() => this.credits.claim(reservationId, claim, { tenantId }));
    if (reply.status === 200) return true;
    if (this.absent(reply)) return false;
    const body = reply.body as { code?: unknown; error?: unknown } | null;
    const why = typeof body?.error === 'string' ? body.error : `status ${reply.status}`;
    if (reply.status === 404 || reply.status === 409) throw new RoostError(reply.status === 404 ? 'NOT_FOUND' : 'CONFLICT', `reservationId: ${why}`, { status: reply.status });
    throw new RoostError('CREDITS_UNAVAILABLE', `credits could not take over reservation ${reservationId}: ${why}`, { status: 503 });
  }

  /** What the turn was charged, in microUnits. */
  async commit(tenantId: string, reservationId: string, usage: Usage): Promise<number> {
    const reply = await this.send(() => this.credits.commit(reservationId, usage, { tenantId }));
    const charged = (reply.body as { charged?: unknown } | null)?.charged;
    if (reply.status >= 300 || typeof charged !== 'number') {
      throw new RoostError('CREDITS_UNAVAILABLE', `committing reservation ${reservationId} failed with status ${reply.status}`, { status: 503 });
    }
    return charged;
  }

  async release(tenantId: string, reservationId: string): Promise<void> {
    await this.send(() => this.credits.release(reservationId, { tenantId }));
  }

  private async send(call: () => Promise<{ status: number; body: unknown }>): Promise<{ status: number; body: unknown }> {
    try {
      return await call();
    } catch (err) {
      return { status: 503, body: { code: 'EXTENSION_UNAVAILABLE', error: (err as Error).message } };
    }
  }

  private absent(reply: { status: number; body: unknown }): boolean {
    if (reply.status !== 404 || (reply.body as { code?: unknown } | null)?.code !== 'ROUTE_NOT_FOUND') return false;
    if (!this.absentNoted) {
      this.absentNoted = true;
      this.host.log('warn', `no credits extension serves ${CREDITS_ROUTES.reserve}: sessions run without billing`);
    }
    return true;
  }
}
