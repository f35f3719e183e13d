// One-time WebSocket tickets (POST /api/ws/ticket), so a browser never puts its API key in a URL. A
// ticket is good once, for a minute. One process keeps them in memory; instances sharing a PostgreSQL
// database keep them in roost_kernel.ws_tickets (hashed), since the load balancer may send the
// upgrade to another instance than the one that issued the ticket.
import { createHash, randomBytes } from 'node:crypto';
import type { Knex } from 'knex';
import { RoostError } from '../../protocol/errors.js';
import type { Identity } from '../auth/identity.js';

export const TICKET_TTL_MS = 60_000;

export interface TicketStore {
  issue(identity: Identity): Promise<{ ticket: string; expiresInSeconds: number }>;
  /** The identity the ticket was issued to; throws when it is unknown, used or expired. */
  take(ticket: string): Promise<Identity>;
  sweep(): Promise<void>;
}

const newTicket = () => randomBytes(24).toString('base64url');
const refused = () => new RoostError('INVALID_API_KEY', 'the WebSocket ticket is unknown or expired');

export class MemoryTickets implements TicketStore {
  private readonly tickets = new Map<string, { identity: Identity; expires: number }>();

  async issue(identity: Identity) {
    const ticket = newTicket();
    this.tickets.set(ticket, { identity, expires: Date.now() + TICKET_TTL_MS });
    return { ticket, expiresInSeconds: TICKET_TTL_MS / 1000 };
  }

  async take(ticket: string): Promise<Identity> {
    const entry = this.tickets.get(ticket);
    this.tickets.delete(ticket);
    if (!entry || entry.expires < Date.now()) throw refused();
    return entry.identity;
  }

  async sweep(): Promise<void> {
    const now = Date.now();
    for (const [ticket, entry] of this.tickets) if (entry.expires < now) this.tickets.delete(ticket);
  }
}

export class SharedTickets implements TicketStore {
  constructor(private readonly db: Knex) {}

  async issue(identity: Identity) {
    const ticket = newTicket();
    await this.db('ws_tickets').insert({ ticket_hash: hash(ticket), identity: JSON.stringify(identity), expires_at: Date.now() + TICKET_TTL_MS });
    return { ticket, expiresInSeconds: TICKET_TTL_MS / 1000 };
  }

  async take(ticket: string): Promise<Identity> {
    // Deleting is taking: of two instances racing for one ticket, one gets the row.
    const [row] = await this.db('ws_tickets').where({ ticket_hash: hash(ticket) }).delete().returning(['identity', 'expires_at']) as Array<{ identity: string; expires_at: number }>;
    if (!row || Number(row.expires_at) < Date.now()) throw refused();
    return JSON.parse(row.identity) as Identity;
  }

  async sweep(): Promise<void> {
    await this.db('ws_tickets').where('expires_at', '<', Date.now()).delete();
  }
}

function hash(ticket: string): string {
  return createHash('sha256').update(ticket).digest('hex');
}
