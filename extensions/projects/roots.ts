// Where a caller's projects may live. The instance's own tenant works in the allowed roots; when those
// are the defaults (no ROOST_ALLOWED_ROOTS), every other tenant gets a folder of its own instead
// (<data>/workspaces/<tenant>), made on first use, where its missing project folders are made too.
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { RoostError } from '../../protocol/errors.js';
import type { ExtensionContext } from '../_shared/extension.js';
import { INSTANCE_TENANT } from '../_shared/roles.js';

export interface Roots {
  dirs: string[];
  /** The tenant's own folder: a project folder missing there is made. */
  own: boolean;
}

export async function rootsFor(ctx: ExtensionContext, tenantId: string): Promise<Roots> {
  const config = ctx.init.config ?? {};
  const workspaces = config.tenantWorkspaces as string | null | undefined;
  if (!workspaces || tenantId === INSTANCE_TENANT) return { dirs: (config.allowedRoots as string[] | undefined) ?? [], own: false };
  if (!/^[A-Za-z0-9_-]+$/.test(tenantId)) throw new RoostError('INTERNAL', `tenant id ${JSON.stringify(tenantId)} cannot name a folder`);
  const dir = join(workspaces, tenantId);
  await mkdir(dir, { recursive: true });
  return { dirs: [dir], own: true };
}
