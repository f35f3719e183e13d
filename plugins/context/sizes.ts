// How big the project is: files and bytes in total and per extension (the largest first).
import { stat } from 'node:fs/promises';
import { extname, join } from 'node:path';
import { listProjectFiles } from '../../lib/project-files.js';

export interface Sizes {
  files: number;
  bytes: number;
  byExtension: Array<{ extension: string; files: number; bytes: number }>;
}

export async function projectSizes(root: string, top: number): Promise<Sizes> {
  const groups = new Map<string, { extension: string; files: number; bytes: number }>();
  let bytes = 0;
  const files = await listProjectFiles(root);
  for (const file of files) {
    const size = (await stat(join(root, file)).catch(() => undefined))?.size ?? 0;
    const extension = extname(file) || '(none)';
    const group = groups.get(extension) ?? { extension, files: 0, bytes: 0 };
    group.files++;
    group.bytes += size;
    groups.set(extension, group);
    bytes += size;
  }
  const byExtension = [...groups.values()].sort((a, b) => b.bytes - a.bytes || a.extension.localeCompare(b.extension)).slice(0, top);
  return { files: files.length, bytes, byExtension };
}
