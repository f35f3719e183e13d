// Folds the per-file analyses into the semantic project map: packages, modules (folders of source
// files, each with its files and exported symbols) and spec documents. Every list is sorted by path.
import { posix } from 'node:path';
import type { FileAnalysis } from './analyze.js';
import { byCodeUnit } from './files.js';

type Source = Extract<FileAnalysis, { role: 'source' }>;
type Spec = Extract<FileAnalysis, { role: 'spec' }>;
type Manifest = Extract<FileAnalysis, { role: 'manifest' }>;

export interface PackageEntry {
  path: string;
  manifest: string;
  ecosystem: string;
  name: string | null;
}

export interface ModuleEntry {
  path: string;
  /** The folder of the nearest enclosing package, or null. */
  package: string | null;
  languages: string[];
  symbolCount: number;
  files: Array<Omit<Source, 'role'>>;
}

export interface ProjectMap {
  languages: Record<string, number>;
  packages: PackageEntry[];
  modules: ModuleEntry[];
  specs: Array<Omit<Spec, 'role'>>;
}

export function buildProjectMap(analysed: FileAnalysis[]): ProjectMap {
  const sorted = [...analysed].sort((a, b) => byCodeUnit(a.path, b.path));
  const sources = sorted.filter((a): a is Source => a.role === 'source');
  const packages = sorted
    .filter((a): a is Manifest => a.role === 'manifest')
    .map((m) => ({ path: posix.dirname(m.path), manifest: posix.basename(m.path), ecosystem: m.ecosystem, name: m.name }))
    .sort((a, b) => byCodeUnit(a.path, b.path) || byCodeUnit(a.manifest, b.manifest));
  const packageDirs = [...new Set(packages.map((p) => p.path))];

  const byDir = new Map<string, Source[]>();
  for (const source of sources) {
    const dir = posix.dirname(source.path);
    const list = byDir.get(dir);
    if (list) list.push(source);
    else byDir.set(dir, [source]);
  }
  const modules = [...byDir.keys()].sort(byCodeUnit).map((dir): ModuleEntry => {
    const files = byDir.get(dir)!.map(({ role: _role, ...file }) => file);
    return {
      path: dir,
      package: nearestPackage(dir, packageDirs),
      languages: [...new Set(files.map((f) => f.language))].sort(byCodeUnit),
      symbolCount: files.reduce((n, f) => n + f.symbols.length, 0),
      files,
    };
  });

  const languages: Record<string, number> = {};
  for (const language of sources.map((s) => s.language).sort(byCodeUnit)) languages[language] = (languages[language] ?? 0) + 1;
  const specs = sorted.filter((a): a is Spec => a.role === 'spec').map(({ role: _role, ...spec }) => spec);
  return { languages, packages, modules, specs };
}

function nearestPackage(dir: string, packageDirs: string[]): string | null {
  let best: string | null = null;
  for (const candidate of packageDirs) {
    const contains = candidate === '.' || dir === candidate || dir.startsWith(`${candidate}/`);
    if (contains && (best === null || best === '.' || candidate.length > best.length)) best = candidate;
  }
  return best;
}
