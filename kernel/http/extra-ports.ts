// Further ports an extension asks for ([server] listen in plugin.toml: environment variables, each naming
// a port, perhaps with a default): each a listener on the server's host that answers exactly as the main
// port does (the same handler, WebSocket upgrades, connection limits and browser checks). Read once, when
// the server starts. A port the operator set must be had; a default one that is taken is let go.
import type { Log } from '../log.js';
import { createServer, type RequestListener, type Server, type ServerOptions } from 'node:http';
import { RoostError } from '../../protocol/errors.js';
import type { Manifest } from '../host/manifest.js';
import { answerClientErrors } from './client-errors.js';

export interface ExtraPort {
  /** The variable that named it, for the messages a person reads. */
  variable: string;
  port: number;
  /** Taken because the variable is unset: a port in use is then skipped, not fatal. */
  byDefault: boolean;
}

/** The ports the loaded extensions' variables name (or default to); a value that is no port fails the start, naming it. */
export function extraPorts(manifests: Manifest[], env: NodeJS.ProcessEnv): ExtraPort[] {
  const declared = new Map<string, number | undefined>();
  for (const { variable, defaultPort } of manifests.flatMap((m) => m.server?.listen ?? [])) declared.set(variable, declared.get(variable) ?? defaultPort);
  return [...declared].flatMap(([variable, defaultPort]): ExtraPort[] => {
    const value = env[variable];
    if (value === undefined || value === '') return defaultPort ? [{ variable, port: defaultPort, byDefault: true }] : [];
    if (value === '0') return [];
    const port = Number(value);
    if (!Number.isInteger(port) || port < 1 || port > 65535) throw new RoostError('VALIDATION_ERROR', `${variable} must be a port, 1–65535 (0: none), got "${value}"`);
    return [{ variable, port, byDefault: false }];
  });
}

/** The listening server, or null when a default port was taken (said in the log). */
export async function listenExtraPort({ variable, port, byDefault }: ExtraPort, host: string, handler: RequestListener, /** Wires the port as the main one is (WebSocket upgrades, connection limits). */ attach: (server: Server) => void, options: ServerOptions, log: Log): Promise<Server | null> {
  const server = createServer(options, handler);
  server.keepAliveTimeout = 65_000;
  answerClientErrors(server);
  attach(server);
  const listening = await new Promise<boolean>((resolve, reject) => {
    server.once('error', (err: NodeJS.ErrnoException) => {
      if (err.code === 'EADDRINUSE' && byDefault) return resolve(false);
      reject(err.code === 'EADDRINUSE' ? new RoostError('PORT_IN_USE', `${variable} ${port} is already in use on ${host}: stop what holds it, or choose another port`) : err);
    });
    server.listen({ port, host }, () => resolve(true));
  });
  if (listening) return server;
  log('warn', `port ${port} (the default of ${variable}) is in use on ${host}: not answering there; set ${variable} to another port, or to 0 for none`);
  return null;
}
