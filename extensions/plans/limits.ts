// The plans tenants can be on: the limits each sets, from the defaults and the ROOST_PLANS setting.
import { validationError } from '../../protocol/errors.js';
import type { LimitName, PlanLimits } from './contract.js';

export const LIMIT_NAMES: readonly LimitName[] = ['agents', 'concurrentSessions', 'projects', 'creditsPerMonth', 'members'];

/** creditsPerMonth counts whole credits put into the tenant's wallets in a calendar month (UTC). */
export const DEFAULT_PLANS: Record<string, PlanLimits> = {
  free: { agents: 25, concurrentSessions: 10, projects: 25, creditsPerMonth: 100, members: 10 },
  pro: { agents: 250, concurrentSessions: 50, projects: 250, creditsPerMonth: 10_000, members: 100 },
  enterprise: { agents: 10_000, concurrentSessions: 1_000, projects: 10_000, creditsPerMonth: 10_000_000, members: 1_000 },
};


/** ROOST_PLANS: a JSON object of plans, each a partial set of limits; merged over the defaults. */
export function plansFrom(text: string | undefined): Record<string, PlanLimits> {
  if (!text) return DEFAULT_PLANS;
  let given: unknown;
  try {
    given = JSON.parse(text);
  } catch {
    throw validationError('ROOST_PLANS must be a JSON object: {"free": {"agents": 10, …}, …}');
  }
  if (typeof given !== 'object' || given === null || Array.isArray(given)) throw validationError('ROOST_PLANS must be a JSON object of plans');
  const plans: Record<string, PlanLimits> = { ...DEFAULT_PLANS };
  for (const [name, limits] of Object.entries(given as Record<string, unknown>)) {
    if (!/^[a-z][a-z0-9_-]{0,31}$/.test(name)) throw validationError(`ROOST_PLANS: plan name "${name}" must be lower-case letters, digits, - or _`);
    plans[name] = { ...(DEFAULT_PLANS[name] ?? DEFAULT_PLANS.free!), ...checkedLimits(limits, `ROOST_PLANS.${name}`) };
  }
  return plans;
}
export function checkedLimits(value: unknown, where: string): Partial<PlanLimits> {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) throw validationError(`${where} must be an object of limits`);
  const out: Partial<PlanLimits> = {};
  for (const [key, n] of Object.entries(value as Record<string, unknown>)) {
    if (!(LIMIT_NAMES as readonly string[]).includes(key)) throw validationError(`${where}.${key} is not a limit; the limits are ${LIMIT_NAMES.join(', ')}`);
    if (typeof n !== 'number' || !Number.isSafeInteger(n) || n < 0) throw validationError(`${where}.${key} must be a whole number ≥ 0`);
    out[key as LimitName] = n;
  }
  return out;
}
