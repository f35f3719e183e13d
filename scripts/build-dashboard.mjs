// `npm run build`, after the extensions: the dashboard's single-page app (extensions/dashboard/web, Preact
// and uPlot) typechecked with its own tsconfig (DOM and JSX, which the server's leaves out), then bundled
// and minified by esbuild into dist/dashboard: index.html plus one script and one style sheet whose names
// carry their content's hash (so they may be cached for good). No inline script or style, so the page
// runs under the strict Content-Security-Policy that extensions/dashboard sends.
import { execFileSync } from 'node:child_process';
import { mkdir, rm, writeFile } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';
import { readFileSync } from 'node:fs';
import { build } from 'esbuild';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const outdir = join(root, 'dist', 'dashboard');
const web = join(root, 'extensions', 'dashboard', 'web');

execFileSync(process.execPath, [join(root, 'node_modules', 'typescript', 'bin', 'tsc'), '-p', join(web, 'tsconfig.json')], { stdio: 'inherit' });

await rm(outdir, { recursive: true, force: true });
await mkdir(outdir, { recursive: true });
const result = await build({
  entryPoints: [join(web, 'main.tsx')],
  outdir,
  entryNames: 'app-[hash]',
  bundle: true,
  minify: true,
  format: 'esm',
  target: ['es2020', 'chrome100', 'firefox100', 'safari15'],
  jsx: 'automatic',
  jsxImportSource: 'preact',
  metafile: true,
  legalComments: 'none',
  logLevel: 'warning',
});

const outputs = Object.keys(result.metafile.outputs).map((file) => basename(file));
const script = outputs.find((f) => f.endsWith('.js'));
const style = outputs.find((f) => f.endsWith('.css'));
const html = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="color-scheme" content="light dark">
<title>Roost</title>
<link rel="stylesheet" href="/ui/${style}">
<script type="module" src="/ui/${script}"></script>
</head>
<body>
<div id="app"><p class="boot">Loading the dashboard…</p></div>
<noscript>The Roost dashboard needs JavaScript.</noscript>
</body>
</html>
`;
await writeFile(join(outdir, 'index.html'), html);
const gzip = [script, style, 'index.html'].reduce((sum, f) => sum + gzipSync(readFileSync(join(outdir, f))).length, 0);
process.stdout.write(`built the dashboard into dist/dashboard (${script}, ${style}; ${(gzip / 1024).toFixed(1)} KiB gzipped)\n`);
