// The extension graph the manifests declare: `requires` (hard: started first, kept loaded while a
// dependent is) and `uses` (optional: the caller answers a clear error without it). The registry asks
// these questions of it; nothing here starts or stops anything.
import { RoostError } from '../../protocol/errors.js';
import type { Manifest } from './manifest.js';

type Node = { manifest: Manifest; state: string };

const conflict = (message: string, details: Record<string, string[]>) => new RoostError('CONFLICT', message, { details });

const requiresOf = (manifest: Manifest): string[] => manifest.server?.requires ?? [];

/**
 * A cycle of hard requirements through `from`, as its names in order with `from` at both ends
 * (["a", "b", "a"]), or undefined. `manifests` maps every known extension's name to its manifest.
 */
export function cycleThrough(from: string, manifests: Map<string, Manifest>): string[] | undefined {
  const path: string[] = [];
  const done = new Set<string>();
  const visit = (name: string): string[] | undefined => {
    if (path.length > 0 && name === from) return [...path, from];
    if (done.has(name) || path.includes(name)) return undefined;
    const manifest = manifests.get(name);
    if (!manifest) return undefined;
    path.push(name);
    for (const next of requiresOf(manifest)) {
      const cycle = visit(next);
      if (cycle) return cycle;
    }
    path.pop();
    done.add(name);
    return undefined;
  };
  return visit(from);
}

export const describeCycle = (cycle: string[]): string => `hard requirements form a cycle: ${cycle.join(' → ')}`;

/**
 * Which of the manifests found at start-up cannot be registered, and why: those on a cycle of hard
 * requirements, and (repeatedly, since a refusal can strand another) those requiring one that is
 * neither found nor accepted. `loadedElsewhere`: names loaded later from other folders (extension_sources).
 */
export function refusedAtStart(manifests: Manifest[], loadedElsewhere: Set<string>): Map<string, string> {
  const byName = new Map(manifests.map((m) => [m.name, m]));
  const refused = new Map<string, string>();
  for (const manifest of manifests) {
    const cycle = cycleThrough(manifest.name, byName);
    if (cycle) refused.set(manifest.name, describeCycle(cycle));
  }
  for (let changed = true; changed;) {
    changed = false;
    for (const manifest of manifests) {
      if (refused.has(manifest.name)) continue;
      const missing = requiresOf(manifest).filter((r) => !loadedElsewhere.has(r) && (!byName.has(r) || refused.has(r)));
      if (missing.length === 0) continue;
      refused.set(manifest.name, `requires ${missing.join(', ')}, which ${missing.length === 1 ? 'is' : 'are'} not available`);
      changed = true;
    }
  }
  return refused;
}

/** Refuses to load `manifest` when its requirements form a cycle or one of them is not loaded (409 naming them). */
export function assertLoadable(manifest: Manifest, known: Map<string, Node>): void {
  const manifests = new Map([...known].map(([name, node]) => [name, node.manifest]));
  manifests.set(manifest.name, manifest);
  const cycle = cycleThrough(manifest.name, manifests);
  if (cycle) throw conflict(`extension ${manifest.name} cannot be loaded: ${describeCycle(cycle)}`, { cycle });
  const missing = requiresOf(manifest).filter((r) => (known.get(r)?.state ?? 'unloaded') === 'unloaded');
  if (missing.length > 0) {
    throw conflict(`extension ${manifest.name} requires ${missing.join(', ')}, which ${missing.length === 1 ? 'is' : 'are'} not loaded: load ${missing.length === 1 ? 'it' : 'them'} first`, { missing });
  }
}

/** The loaded extensions that require `name` directly, by name. */
export function dependentsOf(name: string, known: Iterable<Node>): string[] {
  return [...known].filter((n) => n.state !== 'unloaded' && requiresOf(n.manifest).includes(name)).map((n) => n.manifest.name).sort();
}

/** Everything loaded that requires `name` directly or through others, each after all that require it (the order to unload them in). */
export function dependentsToUnload(name: string, known: Map<string, Node>): string[] {
  const order: string[] = [];
  const visit = (target: string) => {
    for (const dependent of dependentsOf(target, known.values())) {
      if (order.includes(dependent)) continue;
      visit(dependent);
      if (!order.includes(dependent)) order.push(dependent);
    }
  };
  visit(name);
  return order;
}

/** Refuses an unload or revoke that would leave loaded extensions without what they require (409 naming them). */
export function assertNoDependents(name: string, known: Map<string, Node>, what: string): void {
  const dependents = dependentsOf(name, known.values());
  if (dependents.length === 0) return;
  throw conflict(`cannot ${what} extension ${name}: ${dependents.join(', ')} ${dependents.length === 1 ? 'requires' : 'require'} it (force=true ${what === 'unload' ? 'unloads them too' : 'does it anyway'})`, { dependents });
}
