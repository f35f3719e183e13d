// `roost serve`: the agent orchestration server, until SIGINT or SIGTERM.
import { RoostError } from '../../protocol/errors.js';
import type { CommandHandler } from '../tree.js';

export const serve: CommandHandler = async ({ options }) => {
  const { startServer } = await import('../../kernel/server.js');
  const port = options.port === undefined ? undefined : Number(options.port);
  if (port !== undefined && (!Number.isInteger(port) || port < 0 || port > 65535)) throw new RoostError('USAGE', `--port must be 0–65535, got ${String(options.port)}`);
  const server = await startServer({
    ...(port !== undefined ? { port } : {}),
    ...(typeof options.host === 'string' ? { host: options.host } : {}),
    ...(typeof options.dataDir === 'string' ? { dataDir: options.dataDir } : {}),
  });
  process.stderr.write(`roost serve: listening on ${server.url} (data in ${server.kernel.config.dataDir})\n`);
  await new Promise<void>((resolve) => {
    const stop = () => resolve();
    process.once('SIGINT', stop);
    process.once('SIGTERM', stop);
  });
  process.stderr.write('roost serve: shutting down\n');
  await server.close();
  return { data: { stopped: true, url: server.url } };
};
