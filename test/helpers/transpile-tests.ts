// `npm test` runs the test files as JavaScript: under tsx (on Node 20 its hooks run in a loader thread of
// their own) an empty test file costs 0.8 s of CPU, one importing the server helpers 1.8 s; as JavaScript
// 0.4 s and 0.6 s. This writes each .ts of the checkout as a .js at the same place in a mirror folder,
// once per run (about a second of CPU), so relative imports find each other there. import.meta.url,
// .dirname and .filename are replaced by the original file's, so whatever a file finds beside itself
// (fixtures, the built dist/, its own source, `node --import tsx` of a sibling .ts) it finds in the
// checkout as before. The .js/.mjs/.cjs/.json files are linked in (Node follows the link: they run from
// the checkout), and so are node_modules and package.json ("type": "module"). A file run by hand still
// runs under tsx (docs/testing.md).
import { mkdir, readdir, readFile, symlink, writeFile } from 'node:fs/promises';
import { dirname, join, relative } from 'node:path';
import { pathToFileURL } from 'node:url';
import { transform } from 'esbuild';

/** The mirror of this run, for the reporter to name the files as the checkout's. */
export const MIRROR_ENV = 'ROOST_TEST_MIRROR';

/** Folders of the checkout that hold no source the tests import. */
const SKIPPED = new Set(['node_modules', 'dist', 'docs']);
const LINKED = /\.(js|mjs|cjs|json)$/;

async function sources(root: string): Promise<string[]> {
  const files: string[] = [];
  for (const top of await readdir(root, { withFileTypes: true })) {
    if (!top.isDirectory() || top.name.startsWith('.') || SKIPPED.has(top.name)) continue;
    for (const entry of await readdir(join(root, top.name), { recursive: true })) {
      if (entry.split('/').includes('node_modules')) continue;
      if (entry.endsWith('.ts') && !entry.endsWith('.d.ts')) files.push(join(top.name, entry));
      else if (LINKED.test(entry)) files.push(join(top.name, entry));
    }
  }
  return files;
}

/** Writes the mirror of `root` into `out` (an empty folder). */
export async function transpileTree(root: string, out: string): Promise<void> {
  const files = await sources(root);
  await Promise.all([...new Set(files.map((file) => dirname(join(out, file))))].map((dir) => mkdir(dir, { recursive: true })));
  await symlink(join(root, 'node_modules'), join(out, 'node_modules'));
  await symlink(join(root, 'package.json'), join(out, 'package.json'));
  await Promise.all(
    files.map(async (file) => {
      const original = join(root, file);
      if (!file.endsWith('.ts')) return symlink(original, join(out, file));
      const source = await readFile(original, 'utf8');
      const result = await transform(source, {
        loader: 'ts',
        format: 'esm',
        target: 'node20',
        sourcefile: original,
        tsconfigRaw: { compilerOptions: { useDefineForClassFields: true } },
        define: {
          'import.meta.url': JSON.stringify(pathToFileURL(original).href),
          'import.meta.dirname': JSON.stringify(dirname(original)),
          'import.meta.filename': JSON.stringify(original),
        },
      }).catch(() => undefined); // a fixture that is not valid TypeScript on purpose: nothing imports it
      if (result) await writeFile(join(out, file.replace(/\.ts$/, '.js')), result.code);
    }),
  );
}

/** Where `file` (a .test.ts of the checkout) runs from in the mirror. */
export function mirrored(root: string, out: string, file: string): string {
  return join(out, relative(root, file)).replace(/\.ts$/, '.js');
}
