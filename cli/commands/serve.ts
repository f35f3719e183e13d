// `roost serve`: the agent orchestration server, until SIGINT or SIGTERM. The first signal stops it
// gracefully within ROOST_SHUTDOWN_TIMEOUT_MS and exits 0; a second one exits at once (non-zero). A
// restart (svc_restart_server) stops it the same graceful way and then re-executes it (serve-restart.ts).
import { resolve } from 'node:path';
import { RoostError } from '../../protocol/errors.js';
import type { RunningServer } from '../../kernel/server.js';
import { printResult } from '../output.js';
import type { CommandHandler } from '../tree.js';
import { exitForRestart, parentSignals, superviseRestarts, supervisedPort } from './serve-restart.js';

/** Past the shutdown deadline by this much, the process leaves whatever still holds it. */
const BACKSTOP_MARGIN_MS = 1_000;

export const serve: CommandHandler = async ({ options }, ctx) => {
  const { startServer } = await import('../../kernel/server.js');
  // A process started by a `roost serve` that restarts takes over its port (even one --port 0 chose).
  const takeover = supervisedPort();
  const port = takeover ?? (options.port === undefined ? undefined : Number(options.port));
  if (port !== undefined && (!Number.isInteger(port) || port < 0 || port > 65535)) throw new RoostError('USAGE', `--port must be 0–65535, got ${String(options.port)}`);
  let stopAsked = false;
  const stopRequested = stopSignal(takeover !== undefined).then((signal) => ((stopAsked = true), { signal }));
  let restart!: (reason: string) => void;
  const restartRequested = new Promise<{ restart: string }>((resolve) => (restart = (reason) => resolve({ restart: reason })));
  let live: RunningServer | undefined;
  const startup = startServer({
    ...(port !== undefined ? { port } : {}),
    ...(typeof options.host === 'string' ? { host: options.host } : {}),
    // Resolved here: extensions run in their own folders, so a relative data dir would differ for each.
    ...(typeof options.dataDir === 'string' ? { dataDir: resolve(options.dataDir) } : {}),
  }, {
    // Said as soon as the port listens (before the eager extensions are ready), so --port 0 is usable.
    onListening(server) {
      live = server;
      const { dataDir } = server.kernel.config;
      server.kernel.log('info', `roost serve: listening on ${server.url} (pid ${process.pid}, data in ${dataDir})`);
      if (takeover !== undefined) return;
      if (ctx.json) printResult({ data: { url: server.url, port: server.port, pid: process.pid, dataDir } }, true);
      else process.stdout.write(`${server.url}\n`);
    },
    onRestart: restart,
  });
  // A failed start-up rejects here; a signal during start-up stops what has started so far.
  const outcome = await Promise.race([stopRequested, startup.then(() => Promise.race([stopRequested, restartRequested]))]);
  const server = live ?? (await startup);
  const timeoutMs = server.kernel.config.shutdownTimeoutMs;
  const why = 'signal' in outcome ? `${outcome.signal}: shutting down` : `restarting (${outcome.restart})`;
  server.kernel.log('info', `roost serve: ${why} (at most ${timeoutMs} ms)`);
  const backstop = setTimeout(() => {
    server.kernel.log('error', `roost serve: not stopped within ${timeoutMs} ms; leaving now`);
    process.exit(1);
  }, timeoutMs + BACKSTOP_MARGIN_MS).unref();
  await server.close();
  await startup.catch(() => undefined);
  clearTimeout(backstop);
  // A stop asked for while the restart's shutdown ran wins: nothing starts again.
  if ('restart' in outcome && !stopAsked) {
    // Under a parent: it starts the next process. Otherwise this one becomes that parent.
    if (takeover !== undefined) exitForRestart();
    else process.exit(await superviseRestarts(server.port, (message) => server.kernel.log('info', message)));
    return { data: {}, printed: true };
  }
  // Nothing of the server is left; a handle someone forgot must not keep the process alive.
  setTimeout(() => process.exit(), 100).unref();
  return { data: {}, printed: true };
};

/** Resolves on the first stop signal (from the parent, when there is one); a second one exits at once. */
function stopSignal(underParent: boolean): Promise<NodeJS.Signals> {
  return new Promise((resolve) => {
    let received = false;
    const onSignal = (signal: NodeJS.Signals) => {
      if (received) {
        process.stderr.write(`roost serve: second ${signal}: exiting now\n`);
        process.exit(signal === 'SIGINT' ? 130 : 143);
      }
      received = true;
      resolve(signal);
    };
    if (underParent) return parentSignals(onSignal);
    process.on('SIGINT', onSignal);
    process.on('SIGTERM', onSignal);
  });
}
