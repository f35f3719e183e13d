// The dashboard extension: serves the built single-page app. `/` sends the browser to `/ui/`; `/ui/`
// is the page; `/ui/<file>` its script and style sheet. Everything else the app does goes through the
// public REST API and the WebSocket, as the signed-in caller.
import { notFound, RoostError } from '../../protocol/errors.js';
import type { RouteReply } from '../../protocol/messages.js';
import { runExtension } from '../../sdk/extension.js';
import { loadAssets, SECURITY_HEADERS, type Asset } from './assets.js';

/** The built app's files by name: the running state, read once by setup and handed to every route. */
type Assets = Map<string, Asset>;

function serve(assets: Assets, name: string): RouteReply {
  const asset = assets.get(name);
  if (!asset) {
    if (assets.size === 0) throw new RoostError('EXTENSION_UNAVAILABLE', 'the dashboard is not built: run npm run build');
    throw notFound(`dashboard file ${name}`);
  }
  // The page is always fetched afresh; its script and style carry their content's hash in their names.
  const cache = name === 'index.html' ? 'no-cache' : 'public, max-age=31536000, immutable';
  return { status: 200, headers: { ...SECURITY_HEADERS, 'content-type': asset.type, 'cache-control': cache }, body: asset.body };
}

// A body of its own: an empty one would turn the answer into a 204.
const toPage = (): RouteReply => ({ status: 302, headers: { location: '/ui/', 'cache-control': 'no-cache' }, body: 'The dashboard is at /ui/' });

runExtension<Assets>({
  setup: () => loadAssets(),
  routes: {
    'GET /': toPage,
    // The route also matches `/ui/` (a trailing slash is allowed): that is the page itself.
    'GET /ui': (req, _ctx, assets) => (req.path.endsWith('/') ? serve(assets, 'index.html') : toPage()),
    'GET /ui/:file': (req, _ctx, assets) => serve(assets, req.params.file!),
  },
});
