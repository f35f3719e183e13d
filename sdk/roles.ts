// Role rules inside extensions (the kernel already stops viewers from mutating anything).
import { forbidden } from '../protocol/errors.js';
import type { AuthContext } from '../protocol/messages.js';

const RANK = { viewer: 0, operator: 1, owner: 2 } as const;
/** The kernel's own tenant; its owner is the owner of the whole instance. */
export const INSTANCE_TENANT = 'default';

export function requireRole(auth: AuthContext, role: keyof typeof RANK, what: string): void {
  if ((RANK[auth.role] ?? -1) < RANK[role]) throw forbidden(`${what} needs the ${role} role; the caller is ${auth.role}`);
}

export function requireInstanceOwner(auth: AuthContext, what: string): void {
  if (auth.tenantId !== INSTANCE_TENANT || auth.role !== 'owner') throw forbidden(`only the instance owner may ${what}`);
}
