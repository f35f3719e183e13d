// ROOST_UI_PORT: a second listener on the same host that answers exactly as the main port does (the
// same handler, WebSocket upgrades and browser checks), so the web UI served at `/` is also reachable on
// the port a browser user expects (4200). Its pages are then same-origin with the API on that port.
import { createServer, type RequestListener, type Server, type ServerOptions } from 'node:http';
import { RoostError } from '../../protocol/errors.js';
import { answerClientErrors } from './client-errors.js';

export async function listenUiPort(port: number, host: string, handler: RequestListener, /** Wires the port as the main one is (WebSocket upgrades, connection limits). */ attach: (server: Server) => void, options: ServerOptions = {}): Promise<Server> {
  const server = createServer(options, handler);
  server.keepAliveTimeout = 65_000;
  answerClientErrors(server);
  attach(server);
  await new Promise<void>((resolve, reject) => {
    server.once('error', (err: NodeJS.ErrnoException) => {
      reject(err.code === 'EADDRINUSE' ? new RoostError('PORT_IN_USE', `ROOST_UI_PORT ${port} is already in use on ${host}: stop what holds it, or choose another port`) : err);
    });
    server.listen({ port, host }, () => resolve());
  });
  return server;
}
