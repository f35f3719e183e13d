// Serves the kernel's own routes from the router's table, each route's handlers composed once at start.
// @koa/router's own dispatch reads the Host header, matches every layer and composes the matched
// handlers again on every request: a tenth of the CPU of a health check.
import type Router from '@koa/router';
import type { RouterContext } from '@koa/router';
import type Koa from 'koa';
import compose from 'koa-compose';
import type { State } from './app.js';

export function kernelRouteDispatch(router: Router<State>): Koa.Middleware<State> {
  const routes = router.stack
    .filter((layer) => layer.methods.length > 0)
    .map((layer) => ({ layer, run: compose(layer.stack as unknown as Koa.Middleware<State>[]) }));
  return (ctx, next) => {
    const { method, path } = ctx.request;
    for (const { layer, run } of routes) {
      if (!layer.methods.includes(method) || !layer.match(path)) continue;
      // What a route handler reads of the match, as the router would set it.
      const routed = ctx as unknown as RouterContext<State> & { _matchedRoute: string | RegExp };
      routed.params = layer.params(path, layer.captures(path));
      routed._matchedRoute = layer.path;
      return run(ctx, next);
    }
    return next();
  };
}
