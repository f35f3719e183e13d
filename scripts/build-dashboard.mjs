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
/** An "R" on the accent colour, inline (the page's CSP allows data: images), so no /favicon.ico is asked for. */
const FAVICON = `data:image/svg+xml,${encodeURIComponent("<svg xmlns='http://www.w3.org/2000/svg' viewBox='0 0 32 32'><rect width='32' height='32' rx='7' fill='#2f6fde'/><path d='M11 25V8h7a5 5 0 0 1 0 10h-7m7 0 5 7' fill='none' stroke='#fff' stroke-width='3' stroke-linecap='round' stroke-linejoin='round'/></svg>")}`;
const html = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="color-scheme" content="light dark">
<title>Roost</title>
<link rel="icon" href="${FAVICON}">
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
