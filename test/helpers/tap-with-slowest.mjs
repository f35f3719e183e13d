// The TAP reporter of node:test, with the ten slowest test files (the sum of their top-level tests) as
// diagnostics just before the closing summary, so a suite that grows slow shows where — and the summary
// (# tests, # pass, # fail …) stays the last thing printed.
import { tap } from 'node:test/reporters';

const SHOWN = 10;

export default async function* tapWithSlowest(source) {
  const perFile = new Map();
  async function* watched() {
    let summarized = false;
    for await (const event of source) {
      const { data } = event;
      if ((event.type === 'test:pass' || event.type === 'test:fail') && data.nesting === 0 && data.file) {
        const file = checkoutPath(data.file);
        perFile.set(file, (perFile.get(file) ?? 0) + (data.details?.duration_ms ?? 0));
      }
      // The run's summary opens with "tests N": the slowest files go just before it.
      if (!summarized && event.type === 'test:diagnostic' && data.nesting === 0 && /^tests \d+$/.test(data.message)) {
        summarized = true;
        for (const message of slowest(perFile)) yield { type: 'test:diagnostic', data: { nesting: 0, message } };
      }
      yield event;
    }
  }
  yield* tap(watched());
}

/** A file's path in the checkout: under `npm test` the files run from a mirror (transpile-tests.ts). */
function checkoutPath(file) {
  const mirror = process.env.ROOST_TEST_MIRROR;
  if (mirror && file.startsWith(`${mirror}/`)) return file.slice(mirror.length + 1).replace(/\.js$/, '.ts');
  return file.replace(`${process.cwd()}/`, '');
}

function slowest(perFile) {
  const top = [...perFile].sort((a, b) => b[1] - a[1]).slice(0, SHOWN);
  return [`slowest test files (of ${perFile.size}):`, ...top.map(([file, ms]) => `  ${(ms / 1000).toFixed(1).padStart(6)} s  ${file}`)];
}
