// Where a caller's projects may live. The instance's own tenant works in the allowed roots; when those
// are the defaults (no ROOST_ALLOWED_ROOTS), every other tenant gets a folder of its own instead
// (<data>/workspaces/<tenant>), made on first use, where its missing project folders are made too.
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { RoostError } from '../protocol/errors.js';
import type { ExtensionContext } from './extension.js';
import { INSTANCE_TENANT } from './roles.js';

export interface Roots {
  dirs: string[];
  /** The tenant's own folder: a project folder missing there is made. */
  own: boolean;
}

export async function rootsFor(ctx: ExtensionContext, tenantId: string): Promise<Roots> {
  const own = ownFolder(ctx, tenantId);
  if (!own) return { dirs: allowedRoots(ctx), own: false };
  await mkdir(own, { recursive: true });
  return { dirs: [own], own: true };
}

/**
 * Where an extension may make throwaway project folders for a tenant (exam workspaces, for one): the
 * tenant's own folder when tenants have one, else an allowed root, the temporary folder when it is one.
 */
export function scratchRoot(ctx: ExtensionContext, tenantId: string): string {
  const own = ownFolder(ctx, tenantId);
  if (own) return own;
  const roots = allowedRoots(ctx);
  const root = roots.find((r) => /(^|\/)te?mp$/.test(r)) ?? roots[0];
  if (!root) throw new RoostError('INTERNAL', 'no allowed root to make a workspace in (ROOST_ALLOWED_ROOTS)');
  return root;
}

function allowedRoots(ctx: ExtensionContext): string[] {
  return (ctx.init.config?.allowedRoots as string[] | undefined) ?? [];
}

/** The tenant's own folder, or undefined when it works in the allowed roots. */
function ownFolder(ctx: ExtensionContext, tenantId: string): string | undefined {
  const workspaces = ctx.init.config?.tenantWorkspaces as string | null | undefined;
  if (!workspaces || tenantId === INSTANCE_TENANT) return undefined;
  if (!/^[A-Za-z0-9_-]+$/.test(tenantId)) throw new RoostError('INTERNAL', `tenant id ${JSON.stringify(tenantId)} cannot name a folder`);
  return join(workspaces, tenantId);
}
