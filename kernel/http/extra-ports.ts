// Further ports an extension asks for ([server] listen in plugin.toml: environment variables, each naming
// a port): each a listener on the server's host that answers exactly as the main port does (the same
// handler, WebSocket upgrades, connection limits and browser checks). Read once, when the server starts.
import { createServer, type RequestListener, type Server, type ServerOptions } from 'node:http';
import { RoostError } from '../../protocol/errors.js';
import type { Manifest } from '../host/manifest.js';
import { answerClientErrors } from './client-errors.js';

export interface ExtraPort {
  /** The variable that named it, for the messages a person reads. */
  variable: string;
  port: number;
}

/** The ports the loaded extensions' variables name; a value that is no port fails the start, naming it. */
export function extraPorts(manifests: Manifest[], env: NodeJS.ProcessEnv): ExtraPort[] {
  const variables = [...new Set(manifests.flatMap((m) => m.server?.listen ?? []))];
  return variables.filter((variable) => env[variable]).map((variable) => {
    const port = Number(env[variable]);
    if (!Number.isInteger(port) || port < 1 || port > 65535) throw new RoostError('VALIDATION_ERROR', `${variable} must be a port, 1–65535, got "${env[variable]}"`);
    return { variable, port };
  });
}

export async function listenExtraPort({ variable, port }: ExtraPort, host: string, handler: RequestListener, /** Wires the port as the main one is (WebSocket upgrades, connection limits). */ attach: (server: Server) => void, options: ServerOptions = {}): Promise<Server> {
  const server = createServer(options, handler);
  server.keepAliveTimeout = 65_000;
  answerClientErrors(server);
  attach(server);
  await new Promise<void>((resolve, reject) => {
    server.once('error', (err: NodeJS.ErrnoException) => {
      reject(err.code === 'EADDRINUSE' ? new RoostError('PORT_IN_USE', `${variable} ${port} is already in use on ${host}: stop what holds it, or choose another port`) : err);
    });
    server.listen({ port, host }, () => resolve());
  });
  return server;
}
