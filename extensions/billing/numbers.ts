/** Numbers from the database (PostgreSQL returns bigints as strings). */
export const num = (value: unknown): number => (value === null || value === undefined ? 0 : Number(value));

/** Stripe's times are Unix seconds. */
export const isoFromUnix = (seconds: number | null | undefined): string | null => (typeof seconds === 'number' ? new Date(seconds * 1000).toISOString() : null);
