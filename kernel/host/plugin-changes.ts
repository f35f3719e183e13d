// Load, unload, grant and revoke made on one instance, applied on every other one. Instances sharing a
// PostgreSQL database share what is stored (extension_sources, extension_grants) but each keeps its
// registry in memory: a change travels as a bus event, and an instance applies the changes it did not
// make itself (remote events). With one instance nothing is remote, and nothing happens here.
import type { EventBus } from '../bus.js';
import type { ExtensionRegistry } from './registry.js';

export const PLUGINS_TOPIC = 'kernel.plugins';

export type PluginChange =
  | { action: 'load'; name: string; dir: string }
  | { action: 'unload'; name: string }
  | { action: 'grant' | 'revoke'; name: string; capability: string };

export function announcePluginChange(bus: EventBus, change: PluginChange): void {
  bus.publish({ topic: PLUGINS_TOPIC, payload: change, tenantId: null, source: 'kernel' });
}

export function followRemotePluginChanges(bus: EventBus, registry: ExtensionRegistry, log: (level: string, message: string) => void): () => void {
  return bus.subscribe(PLUGINS_TOPIC, (event) => {
    if (!event.remote) return;
    const change = event.payload as PluginChange;
    apply(registry, change).catch((err) => log('warn', `${change.action} of extension ${change.name} made on another instance not applied here: ${(err as Error).message}`));
  });
}

/** The stored state is already changed: each step only brings this registry in line (and its writes repeat what is stored). */
async function apply(registry: ExtensionRegistry, change: PluginChange): Promise<void> {
  const known = registry.list().find((ext) => ext.manifest.name === change.name);
  if (change.action === 'load') {
    if (known && known.state !== 'unloaded') return;
    await registry.load(known ? change.name : change.dir);
  } else if (change.action === 'unload') {
    // Forced: the instance that made the change announces each dependent it unloaded, and those may arrive after this one.
    if (known && known.state !== 'unloaded') await registry.unload(change.name, true);
  } else if (known) {
    await registry.setGrant(change.name, change.capability, change.action === 'grant', true);
  }
}
