// The lockfiles of the other Node package managers roost run recognises (cli/project/node.ts):
// pnpm-lock.yaml (v5 to v9), yarn.lock (classic v1 and berry) and bun.lock (text). bun.lockb is binary
// and not read. No YAML library is needed: the parts read here are one key or one field per line.
type Found = Array<{ name: string; version: string }>;

/** "name@version" (a scoped name keeps its leading "@"). */
function splitAt(spec: string): { name: string; version: string } | undefined {
  const at = spec.lastIndexOf('@');
  return at > 0 ? { name: spec.slice(0, at), version: spec.slice(at + 1) } : undefined;
}

const unquote = (text: string) => text.trim().replace(/^["']|["']$/g, '');

/** The keys of the top-level `packages:` map: `/name@1.0.0(peer@2)` (v6), `name@1.0.0` (v9), `/name/1.0.0_peer` (v5). */
export function readPnpmLock(text: string): Found {
  const found: Found = [];
  let inPackages = false;
  for (const line of text.split(/\r?\n/)) {
    if (/^\S/.test(line)) inPackages = line.trim() === 'packages:';
    const key = inPackages ? /^ {2}(\S.*):\s*$/.exec(line)?.[1] : undefined;
    if (!key) continue;
    const spec = unquote(key).replace(/^\//, '').replace(/\(.*$/, '');
    // v5 first: its peer suffix (_react@18.2.0) holds an "@" that would fool the name@version split.
    const v5 = /^((?:@[^/]+\/)?[^/@]+)\/(\d[^/_]*)(?:_.*)?$/.exec(spec);
    const parsed = v5 ? { name: v5[1]!, version: v5[2]! } : splitAt(spec);
    if (parsed && /^\d/.test(parsed.version)) found.push(parsed);
  }
  return found;
}

/** Local packages (the workspace itself, links, portals, files) are not registry dependencies. */
const LOCAL_PROTOCOL = /@(?:workspace|link|portal|file|patch):/;

/** Entries `"a@^1", a@^1.2:` followed by `  version "1.2.3"` (v1) or `  version: 1.2.3` (berry). */
export function readYarnLock(text: string): Found {
  const found: Found = [];
  let name: string | undefined;
  for (const line of text.split(/\r?\n/)) {
    if (/^\S/.test(line) && line.trimEnd().endsWith(':') && !line.startsWith('#') && !line.startsWith('__metadata')) {
      const first = unquote(line.trimEnd().slice(0, -1).split(',')[0]!);
      name = LOCAL_PROTOCOL.test(first) ? undefined : splitAt(first.replace(/@npm:/, '@'))?.name;
    } else if (name && /^ {2}version:? /.test(line)) {
      found.push({ name, version: unquote(line.replace(/^ {2}version:? /, '')) });
      name = undefined;
    }
  }
  return found;
}

/** bun.lock is JSON with trailing commas: `packages: { key: ["name@version", …] }`. */
export function readBunLock(text: string): Found {
  const data = JSON.parse(text.replace(/,(\s*[}\]])/g, '$1')) as { packages?: Record<string, unknown[]> };
  return Object.values(data.packages ?? {}).flatMap((entry) => {
    const spec = Array.isArray(entry) ? entry[0] : undefined;
    if (typeof spec !== 'string' || LOCAL_PROTOCOL.test(spec)) return [];
    const parsed = splitAt(spec);
    return parsed && /^\d/.test(parsed.version) ? [parsed] : [];
  });
}
