// The methods that change something: audited, refused to viewers, open to Idempotency-Key.
export const MUTATING_METHODS = ['POST', 'PUT', 'PATCH', 'DELETE'];
const MUTATING = new Set(MUTATING_METHODS);

export const isMutating = (method: string): boolean => MUTATING.has(method);
