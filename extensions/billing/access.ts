// Who may see or change whose billing: a tenant its own (changing it needs the owner role), the server's
// owner (owner of the default tenant) every tenant's. Anyone else's tenant id answers as an unknown one.
import { notFound, RoostError } from '../../protocol/errors.js';
import type { AuthContext } from '../../protocol/messages.js';

const INSTANCE_TENANT = 'default';

export function isServerOwner(auth: AuthContext): boolean {
  return auth.tenantId === INSTANCE_TENANT && auth.role === 'owner';
}

export function requireReader(auth: AuthContext, tenantId: string): void {
  if (auth.tenantId !== tenantId && !isServerOwner(auth)) throw notFound(`tenant ${tenantId}`);
}

export function requireManager(auth: AuthContext, tenantId: string): void {
  requireReader(auth, tenantId);
  if (auth.role !== 'owner') throw new RoostError('FORBIDDEN', `changing a subscription needs the owner role; the caller is ${auth.role}`);
}
