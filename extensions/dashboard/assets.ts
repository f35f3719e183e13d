// The built app (scripts/build-dashboard.mjs writes dist/dashboard): its few files, read once and kept
// in memory with their type, and the headers every answer carries.
import { readdir, readFile } from 'node:fs/promises';
import { extname, join } from 'node:path';
import { distDir } from '../../lib/paths.js';

export const ASSETS_DIR = join(distDir, 'dashboard');

export interface Asset {
  body: string;
  type: string;
}

const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml; charset=utf-8',
  '.json': 'application/json; charset=utf-8',
};

/**
 * Strict: scripts and styles only from this origin, no inline script, no eval, nothing fetched from
 * elsewhere; the page talks to its own origin's API and WebSocket only and may not be framed (a framed
 * dashboard on the owner's machine would be the owner: clickjacking).
 */
export const SECURITY_HEADERS: Record<string, string> = {
  'content-security-policy':
    "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; font-src 'self'; connect-src 'self'; " +
    "manifest-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'",
  'x-frame-options': 'DENY',
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'no-referrer',
  'cross-origin-opener-policy': 'same-origin',
  'cross-origin-resource-policy': 'same-origin',
};

/** Every file of the built app by name; an empty map when the app was not built. */
export async function loadAssets(dir = ASSETS_DIR): Promise<Map<string, Asset>> {
  const assets = new Map<string, Asset>();
  let names: string[];
  try {
    names = await readdir(dir);
  } catch {
    return assets;
  }
  for (const name of names) {
    const type = TYPES[extname(name)];
    if (!type) continue; // source maps and anything else stay on disk
    const body = await readFile(join(dir, name), 'utf8');
    assets.set(name, { body, type });
  }
  return assets;
}
