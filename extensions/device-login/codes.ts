// RFC 8628 device authorizations: a device asks for a code pair, a signed-in person approves (or
// denies) the short user code, and the device, polling with its long device code, receives an API key
// of the approver's tenant and role. Device codes are stored hashed; approving stores the kernel's
// signed key grant for the approver (`keys` capability), and the key is minted only when the approved
// device collects it, once. Answers to the device are RFC 6749 §5 shapes (see main.ts).
import { createHash, randomBytes, randomInt } from 'node:crypto';
import type { Knex } from 'knex';
import { RoostError } from '../../protocol/errors.js';
import type { AuthContext } from '../../protocol/messages.js';
import type { HostClient } from '../../sdk/host-client.js';

type Role = AuthContext['role'];

/** RFC 8628 §6.1: consonants only, no vowels (no words), nothing that reads like a digit. */
const USER_CODE_ALPHABET = 'BCDFGHJKLMNPQRSTVWXZ';
const USER_CODE_LENGTH = 8;
/** RFC 8628 §3.5: each slow_down adds 5 seconds to the interval, for this and every later request. */
const SLOW_DOWN_STEP_MS = 5_000;
/** Failed user-code lookups a caller may make per window before it is refused (guessing). */
const GUESS_LIMIT = 5;
const GUESS_WINDOW_MS = 10 * 60_000;

export type DeviceTokenError = 'authorization_pending' | 'slow_down' | 'access_denied' | 'expired_token' | 'invalid_grant';

export interface DeviceGrant {
  deviceCode: string;
  userCode: string;
  expiresIn: number;
  interval: number;
}

export type TokenOutcome =
  | { ok: true; key: string; tenantId: string; role: Role; expiresAt: string | null }
  | { ok: false; error: DeviceTokenError; description: string };

interface Row {
  device_code_hash: string;
  user_code: string;
  client_id: string;
  status: 'pending' | 'approved' | 'denied' | 'consumed';
  /** The kernel's signed promise of a key of the approver's tenant and role (approved only). */
  grant: string | null;
  approved_by: string | null;
  interval_ms: number | string;
  last_poll_at: number | string | null;
  expires_at: number | string;
  created_at: string;
}

const hash = (deviceCode: string) => createHash('sha256').update(deviceCode).digest('hex');

export function newUserCode(): string {
  let code = '';
  for (let i = 0; i < USER_CODE_LENGTH; i++) code += USER_CODE_ALPHABET[randomInt(USER_CODE_ALPHABET.length)];
  return `${code.slice(0, 4)}-${code.slice(4)}`;
}

/** What a person typed, as stored: upper case, the dash put back, anything else (spaces, dashes) dropped. */
export function normalizeUserCode(typed: string): string | undefined {
  const letters = typed.toUpperCase().replace(/[^A-Z]/g, '');
  if (letters.length !== USER_CODE_LENGTH || [...letters].some((c) => !USER_CODE_ALPHABET.includes(c))) return undefined;
  return `${letters.slice(0, 4)}-${letters.slice(4)}`;
}

export class DeviceAuthorizations {
  constructor(
    private readonly db: Knex,
    private readonly host: HostClient,
    private readonly options: { ttlSeconds: number; intervalSeconds: number },
  ) {}

  async start(clientId: string): Promise<DeviceGrant> {
    const now = Date.now();
    await this.db('device_codes').where('expires_at', '<', now - 3_600_000).delete();
    const deviceCode = randomBytes(32).toString('base64url');
    for (let attempt = 0; ; attempt++) {
      const userCode = newUserCode();
      try {
        await this.db('device_codes').insert({
          device_code_hash: hash(deviceCode), user_code: userCode, client_id: clientId, status: 'pending', grant: null,
          approved_by: null, interval_ms: this.options.intervalSeconds * 1000, last_poll_at: null, expires_at: now + this.options.ttlSeconds * 1000,
          created_at: new Date(now).toISOString(),
        });
        return { deviceCode, userCode, expiresIn: this.options.ttlSeconds, interval: this.options.intervalSeconds };
      } catch (err) {
        // A user code still in the table (one in 20^8): draw another.
        if (attempt >= 3) throw err;
      }
    }
  }

  /** The device's poll (RFC 8628 §3.4–3.5). */
  async poll(deviceCode: string, clientId: string): Promise<TokenOutcome> {
    const row = await this.db<Row>('device_codes').where({ device_code_hash: hash(deviceCode) }).first();
    if (!row || row.client_id !== clientId) return { ok: false, error: 'invalid_grant', description: 'the device code is not known (or belongs to another client)' };
    const now = Date.now();
    if (row.status === 'consumed') return { ok: false, error: 'invalid_grant', description: 'the device code has already been used' };
    if (now >= Number(row.expires_at)) return { ok: false, error: 'expired_token', description: 'the device code has expired; start again' };
    if (row.status === 'denied') return { ok: false, error: 'access_denied', description: 'the authorization request was denied' };
    const interval = Number(row.interval_ms);
    const last = row.last_poll_at === null ? null : Number(row.last_poll_at);
    if (last !== null && now - last < interval) {
      await this.db('device_codes').where({ device_code_hash: row.device_code_hash }).update({ interval_ms: interval + SLOW_DOWN_STEP_MS, last_poll_at: now });
      return { ok: false, error: 'slow_down', description: `polling too fast: wait at least ${(interval + SLOW_DOWN_STEP_MS) / 1000} s between requests` };
    }
    await this.db('device_codes').where({ device_code_hash: row.device_code_hash }).update({ last_poll_at: now });
    if (row.status === 'pending') return { ok: false, error: 'authorization_pending', description: 'the user has not yet approved the request' };
    // Approved: only the poll that moves it to consumed gets the key.
    const taken = await this.db('device_codes').where({ device_code_hash: row.device_code_hash, status: 'approved' }).update({ status: 'consumed' });
    if (taken === 0) return { ok: false, error: 'invalid_grant', description: 'the device code has already been used' };
    const minted = await this.host.mintKey(row.grant!, `device: ${row.client_id}`.slice(0, 200));
    return { ok: true, ...minted };
  }

  /**
   * Approve or deny; each user code is decided once. Approving asks the kernel for a key grant for the
   * approver of request `requestId` (their tenant, `role` at most theirs, the plan's member limit),
   * valid as long as the device code.
   */
  async decide(userCode: string, caller: string, decision: { approve: true; requestId: string; role: Role; actor: string } | { approve: false; actor: string }): Promise<{ clientId: string; tenantId?: string }> {
    const row = await this.findPending(userCode, caller);
    let tenantId: string | undefined;
    let update: Record<string, unknown> = { status: 'denied', approved_by: decision.actor };
    if (decision.approve) {
      const ttlSeconds = Math.max(1, Math.ceil((Number(row.expires_at) - Date.now()) / 1000));
      const granted = await this.host.keyGrant(decision.requestId, decision.role, ttlSeconds);
      tenantId = granted.tenantId;
      update = { status: 'approved', grant: granted.grant, approved_by: decision.actor };
    }
    const n = await this.db('device_codes').where({ device_code_hash: row.device_code_hash, status: 'pending' }).update(update);
    if (n === 0) throw new RoostError('CONFLICT', 'this code has just been decided by someone else');
    return { clientId: row.client_id, ...(tenantId ? { tenantId } : {}) };
  }

  private async findPending(typed: string, caller: string): Promise<Row> {
    await this.refuseGuesser(caller);
    const userCode = normalizeUserCode(typed);
    const row = userCode ? await this.db<Row>('device_codes').where({ user_code: userCode }).first() : undefined;
    if (!row || row.status !== 'pending' || Date.now() >= Number(row.expires_at)) {
      await this.countFailure(caller);
      throw new RoostError('NOT_FOUND', 'no pending device authorization has this code (check it, or start again on the device: codes expire)');
    }
    return row;
  }

  /** Wrong codes are counted in the database, so every instance sharing it refuses the same guesser. */
  private async refuseGuesser(caller: string): Promise<void> {
    const entry = await this.db<{ caller: string; count: number | string; since: number | string }>('device_guesses').where({ caller }).first();
    if (!entry) return;
    const age = Date.now() - Number(entry.since);
    if (age >= GUESS_WINDOW_MS) return void (await this.db('device_guesses').where({ caller }).delete());
    if (Number(entry.count) >= GUESS_LIMIT) {
      const retryAfter = Math.ceil((GUESS_WINDOW_MS - age) / 1000);
      throw new RoostError('RATE_LIMITED', `too many wrong device codes; retry in ${retryAfter} s`, { details: { retryAfter } });
    }
  }

  private async countFailure(caller: string): Promise<void> {
    const now = Date.now();
    await this.db('device_guesses').where('since', '<=', now - GUESS_WINDOW_MS).delete();
    await this.db('device_guesses').insert({ caller, count: 1, since: now }).onConflict('caller').merge({ count: this.db.raw('?? + 1', ['device_guesses.count']) });
  }
}
