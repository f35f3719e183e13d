// Which files the project map reads, decided from the path alone (cheap, before any file is opened).
import { posix } from 'node:path';

export type Language = 'typescript' | 'javascript' | 'python' | 'go' | 'rust' | 'java' | 'kotlin' | 'csharp' | 'ruby' | 'swift';

const BY_EXTENSION: Record<string, Language> = {
  '.ts': 'typescript',
  '.tsx': 'typescript',
  '.mts': 'typescript',
  '.cts': 'typescript',
  '.js': 'javascript',
  '.jsx': 'javascript',
  '.mjs': 'javascript',
  '.cjs': 'javascript',
  '.py': 'python',
  '.go': 'go',
  '.rs': 'rust',
  '.java': 'java',
  '.kt': 'kotlin',
  '.kts': 'kotlin',
  '.cs': 'csharp',
  '.rb': 'ruby',
  '.swift': 'swift',
};

/** Files that declare a package, and so make their directory a package root. */
export const MANIFESTS = ['package.json', 'go.mod', 'Cargo.toml', 'pyproject.toml', 'pom.xml', 'build.gradle', 'build.gradle.kts', 'Package.swift'];

const MARKDOWN = new Set(['.md', '.mdx', '.markdown']);
const SPEC_DIRS = new Set(['docs', 'doc', 'specs', 'spec', 'rfcs', 'rfc', 'adr', 'adrs']);

export type SpecKind = 'readme' | 'design' | 'spec' | 'doc';

export type FileRole =
  | { role: 'source'; language: Language }
  | { role: 'spec'; kind: SpecKind }
  | { role: 'manifest' }
  | { role: 'other' };

export function classify(path: string): FileRole {
  const base = posix.basename(path);
  if (MANIFESTS.includes(base)) return { role: 'manifest' };
  const ext = posix.extname(base).toLowerCase();
  const language = BY_EXTENSION[ext];
  if (language) return { role: 'source', language };
  if (!MARKDOWN.has(ext)) return { role: 'other' };
  const kind = specKind(path, base.slice(0, base.length - ext.length));
  return kind ? { role: 'spec', kind } : { role: 'other' };
}

/** README and DESIGN files anywhere, *SPEC* / RFC / ADR files, and every markdown file under a docs-like folder. */
function specKind(path: string, stem: string): SpecKind | null {
  if (/^readme$/i.test(stem)) return 'readme';
  if (/^(design|architecture)$/i.test(stem)) return 'design';
  if (/spec/i.test(stem) || /^(rfc|adr)[-_ ]?\d/i.test(stem)) return 'spec';
  const dirs = posix.dirname(path).split('/');
  if (dirs.some((d) => d === 'spec' || d === 'specs')) return 'spec';
  if (dirs.some((d) => SPEC_DIRS.has(d.toLowerCase()))) return 'doc';
  return null;
}
