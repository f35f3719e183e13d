// Role rules of the credits routes (the kernel already stops viewers from mutating anything).
import { forbidden } from '../../protocol/errors.js';
import type { AuthContext } from '../../protocol/messages.js';

const RANK = { viewer: 0, operator: 1, owner: 2 } as const;

export function requireRole(auth: AuthContext, role: keyof typeof RANK, what: string): void {
  if ((RANK[auth.role] ?? -1) < RANK[role]) throw forbidden(`${what} needs the ${role} role; the caller is ${auth.role}`);
}
