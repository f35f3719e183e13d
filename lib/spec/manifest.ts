// The package name a manifest declares, read the way each ecosystem writes it.
import { posix } from 'node:path';
import { parse as parseToml } from 'smol-toml';

export interface PackageInfo {
  name: string | null;
  ecosystem: string;
}

/** `dirName` is the name of the manifest's folder on disk (Gradle projects are named after it). */
export function readManifest(path: string, text: string, dirName: string): PackageInfo {
  const base = posix.basename(path);
  switch (base) {
    case 'package.json':
      return { ecosystem: 'node', name: field(() => (JSON.parse(text) as { name?: unknown }).name) };
    case 'go.mod':
      return { ecosystem: 'go', name: /^module\s+(\S+)/m.exec(text)?.[1] ?? null };
    case 'Cargo.toml':
      return { ecosystem: 'rust', name: field(() => (parseToml(text) as { package?: { name?: unknown } }).package?.name) };
    case 'pyproject.toml':
      return {
        ecosystem: 'python',
        name: field(() => {
          const doc = parseToml(text) as { project?: { name?: unknown }; tool?: { poetry?: { name?: unknown } } };
          return doc.project?.name ?? doc.tool?.poetry?.name;
        }),
      };
    case 'pom.xml':
      return { ecosystem: 'java', name: /<artifactId>([^<]+)<\/artifactId>/.exec(text.replace(/<parent>[\s\S]*?<\/parent>/, ''))?.[1] ?? null };
    case 'Package.swift':
      return { ecosystem: 'swift', name: /\bname:\s*"([^"]+)"/.exec(text)?.[1] ?? null };
    default:
      // build.gradle(.kts): the project is named after its folder unless settings.gradle says otherwise.
      return { ecosystem: 'java', name: dirName };
  }
}

/** A manifest that does not parse still marks a package; its name is then unknown. */
function field(read: () => unknown): string | null {
  try {
    const value = read();
    return typeof value === 'string' && value !== '' ? value : null;
  } catch {
    return null;
  }
}
