// Small helpers every extension's route handlers share: paging, query strings, replies.
import { validationError } from '../protocol/errors.js';
import type { RouteReply } from '../protocol/messages.js';

export const DEFAULT_PAGE = 50;
export const MAX_PAGE = 200;

/** `limit`, `offset`, and `total=true` when the client wants the total even where it costs a COUNT. */
export function page(query: Record<string, string | string[]>): { limit: number; offset: number; total: boolean } {
  const total = queryString(query, 'total');
  if (total !== undefined && total !== 'true' && total !== 'false') throw validationError('query.total must be true or false');
  return { limit: intParam(query, 'limit', DEFAULT_PAGE, 1, MAX_PAGE), offset: intParam(query, 'offset', 0, 0, 1_000_000_000), total: total === 'true' };
}

export function queryString(query: Record<string, string | string[]>, name: string): string | undefined {
  const value = query[name];
  if (value === undefined) return undefined;
  if (Array.isArray(value)) throw validationError(`query.${name} must be given once`);
  return value;
}

function intParam(query: Record<string, string | string[]>, name: string, fallback: number, min: number, max: number): number {
  const raw = queryString(query, name);
  if (raw === undefined || raw === '') return fallback;
  const n = Number(raw);
  if (!Number.isInteger(n) || n < min || n > max) throw validationError(`query.${name} must be an integer from ${min} to ${max}`);
  return n;
}

export const ok = (body: unknown): RouteReply => ({ status: 200, body });
export const created = (body: unknown): RouteReply => ({ status: 201, body });
export const noContent = (): RouteReply => ({ status: 204 });
