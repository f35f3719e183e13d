// Every amount is an integer number of microUnits (millionths of a credit). Schemas refuse negative,
// fractional, non-numeric and unsafe values at the door; these helpers keep sums safe afterwards.
import { validationError } from '../../protocol/errors.js';

export const MAX_AMOUNT = Number.MAX_SAFE_INTEGER;

/** Numbers from the database (PostgreSQL returns bigints as strings). */
export const num = (value: unknown): number => (value === null || value === undefined ? 0 : Number(value));

export function safeSum(a: number, b: number, what: string): number {
  const sum = a + b;
  if (!Number.isSafeInteger(sum)) throw validationError(`${what} would leave the safe integer range (±${MAX_AMOUNT} microUnits)`);
  return sum;
}

export const todayUtc = (now = new Date()): string => now.toISOString().slice(0, 10);
