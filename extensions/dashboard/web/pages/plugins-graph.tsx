// The extension graph from GET /api/plugins, as an accessible list: each extension that others call,
// with who requires it (they are started after it and unloaded with it) and who uses it when loaded.
import { Card } from '../components/ui.js';

interface Node {
  name: string;
  requires: string[];
  uses: string[];
  dependents: string[];
}

export function DependencyLine({ plugin }: { plugin: Node }) {
  if (plugin.requires.length + plugin.uses.length + plugin.dependents.length === 0) return null;
  return (
    <dl class="deps" aria-label={`Dependencies of ${plugin.name}`}>
      {plugin.requires.length > 0 && (<><dt>Requires</dt><dd>{plugin.requires.join(', ')}</dd></>)}
      {plugin.uses.length > 0 && (<><dt>Uses</dt><dd>{plugin.uses.join(', ')}</dd></>)}
      {plugin.dependents.length > 0 && (<><dt>Required by</dt><dd>{plugin.dependents.join(', ')}</dd></>)}
    </dl>
  );
}

export function PluginGraph({ plugins }: { plugins: Node[] }) {
  const providers = plugins
    .map((p) => ({
      name: p.name,
      requiredBy: plugins.filter((o) => o.requires.includes(p.name)).map((o) => o.name),
      usedBy: plugins.filter((o) => o.uses.includes(p.name)).map((o) => o.name),
    }))
    .filter((p) => p.requiredBy.length + p.usedBy.length > 0)
    .sort((a, b) => b.requiredBy.length + b.usedBy.length - (a.requiredBy.length + a.usedBy.length) || a.name.localeCompare(b.name));
  if (providers.length === 0) return null;
  return (
    <Card title="Extension graph">
      <p class="muted">Who calls whom: an extension that requires another is started after it and unloaded with it; one that uses another works without it, short of what needs it.</p>
      <ul class="plugin-graph" aria-label="Extension graph">
        {providers.map((p) => (
          <li key={p.name}>
            <strong>{p.name}</strong>
            {p.requiredBy.length > 0 && <> · required by {p.requiredBy.join(', ')}</>}
            {p.usedBy.length > 0 && <> · used by {p.usedBy.join(', ')}</>}
          </li>
        ))}
      </ul>
    </Card>
  );
}
