// The research extension's configuration, read through the `secrets` capability on every use (so a
// changed environment takes effect at the extension's next start without anything cached wrongly).
import type { HostClient } from '../../sdk/host-client.js';

/** Brave Search's API: the shape svc_web_search speaks (see search.ts). */
export const DEFAULT_SEARCH_API_URL = 'https://api.search.brave.com';
export const DEFAULT_CHROMIUM_PATH = '/usr/bin/chromium';

export interface ResearchConfig {
  searchUrl: string;
  searchKey: string | null;
  chromiumPath: string;
}

export async function readConfig(host: HostClient): Promise<ResearchConfig> {
  const [url, key, chromium] = await Promise.all([
    host.secret('ROOST_SEARCH_API_URL'),
    host.secret('ROOST_SEARCH_API_KEY'),
    host.secret('ROOST_CHROMIUM_PATH'),
  ]);
  return { searchUrl: (url || DEFAULT_SEARCH_API_URL).replace(/\/+$/, ''), searchKey: key || null, chromiumPath: chromium || DEFAULT_CHROMIUM_PATH };
}
