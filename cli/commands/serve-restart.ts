// A restart of `roost serve` (svc_restart_server) is a graceful shutdown and then a re-exec: a fresh
// `roost serve` process with the same arguments, environment, working directory and stdio, on the same
// port. Node has no execve, so the process that was started (the one a supervisor such as systemd
// watches as the main pid) stays as a thin parent: it starts the server process, forwards the stop
// signals to it, starts the next one when it restarts in turn, and exits with its exit code. The server
// process speaks to it over an IPC channel: `restart` before it exits for a restart; the parent sends
// it `signal` for each SIGINT, SIGTERM or SIGHUP it receives.
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { constants } from 'node:os';

/** Set for the server process the parent starts: the port it takes over (the first one's, even for --port 0). */
export const RESTART_PORT_ENV = 'ROOST_RESTART_PORT';

type ParentMessage = { type: 'signal'; signal: NodeJS.Signals };

/** The server process started by a parent: its port and what it tells the parent. */
export function supervisedPort(): number | undefined {
  const port = process.env[RESTART_PORT_ENV];
  return port !== undefined && typeof process.send === 'function' ? Number(port) : undefined;
}

/**
 * The stop signals of a server process under a parent: the ones the parent forwards. Signals sent to the
 * whole process group or cgroup (Ctrl-C, systemd's stop) reach the parent too, and it forwards each once,
 * so the process's own copies are ignored. A parent that goes away is a stop as well.
 */
export function parentSignals(onSignal: (signal: NodeJS.Signals) => void): void {
  for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) process.on(signal, () => undefined);
  process.on('message', (message: ParentMessage) => {
    if (message?.type === 'signal') onSignal(message.signal);
  });
  process.once('disconnect', () => onSignal('SIGTERM'));
}

/** Tells the parent this exit is a restart, then exits. */
export function exitForRestart(): void {
  process.send!({ type: 'restart' }, () => process.exit(0));
}

/**
 * Runs the server as a child process, again each time it exits for a restart, until it exits otherwise
 * or a stop signal came; resolves with the exit code to leave with. `log` says what happens.
 */
export async function superviseRestarts(port: number, log: (message: string) => void): Promise<number> {
  let stopping = false;
  let child: ReturnType<typeof spawn> | undefined;
  for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) {
    process.removeAllListeners(signal);
    process.on(signal, () => {
      stopping = true;
      if (child?.connected) child.send({ type: 'signal', signal } satisfies ParentMessage);
    });
  }
  for (;;) {
    child = spawn(process.execPath, [...process.execArgv, ...process.argv.slice(1)], {
      env: { ...process.env, [RESTART_PORT_ENV]: String(port) },
      stdio: ['inherit', 'inherit', 'inherit', 'ipc'],
    });
    let restarting = false;
    child.on('message', (message: { type?: string }) => {
      if (message?.type === 'restart') restarting = true;
    });
    log(`roost serve: re-executed as pid ${child.pid}; this process (pid ${process.pid}) stays as its parent and forwards signals`);
    const [code, signal] = (await once(child, 'exit')) as [number | null, NodeJS.Signals | null];
    if (restarting && !stopping) continue;
    return code ?? 128 + (signal ? (constants.signals[signal] ?? 0) : 0);
  }
}
