// A throwaway PostgreSQL server for tests, from the Debian binaries: initdb into a temporary folder,
// postgres on 127.0.0.1 with a free port and password auth, fsync off. Tests run as root and postgres
// refuses root, so both run as the `postgres` system user. `npm test` starts one server for the whole
// run (test/helpers/run-suite.ts) and every file's sharedPostgres() is that one; a file run on its own
// starts its own. Each test server gets a fresh database on it (createDatabase).
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, readdirSync, rmSync } from 'node:fs';
import { chown, mkdtemp, writeFile } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export interface TestPostgres {
  /** The superuser's URL on the `postgres` database. */
  adminUrl: string;
  /** The temporary folder of the cluster (removed by stop). */
  dir: string;
  /** A fresh, empty database; its superuser URL. */
  createDatabase(prefix?: string): Promise<string>;
  /** `pg_ctl stop -m immediate`: the server quits at once (SIGQUIT), its sessions cut, no checkpoint. */
  stopImmediately(): Promise<void>;
  /** Starts the server again on the same data and port, after stopImmediately. */
  restart(): Promise<void>;
  stop(): Promise<void>;
}

const ADMIN = 'roost_admin';

/** Where initdb and postgres live: pg_config --bindir, else the newest /usr/lib/postgresql/<n>/bin. */
export function postgresBinDir(): string {
  try {
    const dir = execFileSync('pg_config', ['--bindir'], { encoding: 'utf8' }).trim();
    if (existsSync(join(dir, 'initdb'))) return dir;
  } catch {
    // no pg_config: look where Debian puts the server
  }
  const versions = existsSync('/usr/lib/postgresql') ? readdirSync('/usr/lib/postgresql').filter((v) => /^\d+$/.test(v)).sort((a, b) => Number(b) - Number(a)) : [];
  const found = versions.map((v) => `/usr/lib/postgresql/${v}/bin`).find((dir) => existsSync(join(dir, 'initdb')));
  if (!found) throw new Error('PostgreSQL is not installed (no initdb): install the Debian package "postgresql" (.ci/run does)');
  return found;
}

/**
 * Through setpriv, which execs (so the child's pid is the program's own): as root, as the postgres system
 * user; and with SIGQUIT (immediate shutdown) as its parent-death signal, so a test process killed with
 * SIGKILL, which runs no exit hook, still leaves no server running.
 */
function asPostgres(command: string, args: string[]): [string, string[]] {
  const user = process.getuid?.() === 0 ? ['--reuid=postgres', '--regid=postgres', '--init-groups', '--reset-env'] : [];
  return ['setpriv', [...user, '--pdeathsig', 'SIGQUIT', command, ...args]];
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

/** `parent`: where the cluster's folder is made (a small file system, to fill it); the system's temp folder by default. */
export async function startPostgres(options: { parent?: string } = {}): Promise<TestPostgres> {
  const bin = postgresBinDir();
  const dir = await mkdtemp(join(options.parent ?? tmpdir(), 'roost-pg-'));
  const data = join(dir, 'data');
  const password = randomBytes(12).toString('hex');
  await writeFile(join(dir, 'pw'), password);
  if (process.getuid?.() === 0) {
    const { uid, gid } = userIds('postgres');
    await chown(dir, uid, gid);
    await chown(join(dir, 'pw'), uid, gid);
  }
  const [initCmd, initArgs] = asPostgres(join(bin, 'initdb'), [
    '-D', data, '-U', ADMIN, `--pwfile=${join(dir, 'pw')}`, '--auth-local=trust', '--auth-host=scram-sha-256', '-E', 'UTF8', '--no-sync', '--no-instructions',
  ]);
  execFileSync(initCmd, initArgs, { stdio: ['ignore', 'ignore', 'pipe'] });

  let port = 0;
  let log = '';
  /** Spawns postgres on `port`; resolves with it once it accepts connections, or undefined when it exited. */
  const launch = async (): Promise<ChildProcess | undefined> => {
    log = '';
    const [cmd, args] = asPostgres(join(bin, 'postgres'), [
      '-D', data, '-p', String(port), '-c', 'listen_addresses=127.0.0.1', '-c', `unix_socket_directories=${dir}`,
      '-c', 'fsync=off', '-c', 'synchronous_commit=off', '-c', 'full_page_writes=off', '-c', 'max_connections=400',
    ]);
    const started = spawn(cmd, args, { stdio: ['ignore', 'ignore', 'pipe'] });
    started.stderr!.setEncoding('utf8').on('data', (chunk: string) => (log += chunk));
    const outcome = await new Promise<'ready' | 'exited'>((resolve) => {
      started.once('exit', () => resolve('exited'));
      started.stderr!.on('data', () => {
        if (log.includes('ready to accept connections')) resolve('ready');
      });
    });
    if (outcome !== 'ready') return undefined;
    // The server must not keep the test process alive: the exit hook below stops it.
    started.unref();
    (started.stderr as unknown as { unref(): void }).unref();
    return started;
  };
  let child: ChildProcess | undefined;
  for (let attempt = 0; attempt < 5 && !child; attempt++) {
    port = await freePort();
    child = await launch();
    if (!child && !log.includes('Address already in use')) break;
  }
  if (!child) {
    rmSync(dir, { recursive: true, force: true });
    throw new Error(`PostgreSQL did not start:\n${log}`);
  }
  let postmaster = child;
  const adminUrl = `postgres://${ADMIN}:${password}@127.0.0.1:${port}/postgres`;

  // A test file that fails before its after() hooks still leaves no server or folder behind.
  const killNow = () => {
    if (postmaster.exitCode === null) {
      postmaster.kill('SIGQUIT');
      try {
        execFileSync('sh', ['-c', `while kill -0 ${postmaster.pid} 2>/dev/null; do sleep 0.05; done`], { timeout: 10_000 });
      } catch {
        // gone or stuck: remove what we can
      }
    }
    rmSync(dir, { recursive: true, force: true });
  };
  process.once('exit', killNow);

  let stopping: Promise<void> | undefined;
  return {
    adminUrl,
    dir,
    createDatabase: (prefix) => createDatabase(adminUrl, prefix),
    async stopImmediately() {
      if (postmaster.exitCode !== null) return;
      postmaster.ref();
      const exited = new Promise((resolve) => postmaster.once('exit', resolve));
      postmaster.kill('SIGQUIT');
      await exited;
    },
    async restart() {
      const started = await launch();
      if (!started) throw new Error(`PostgreSQL did not start again:\n${log}`);
      postmaster = started;
    },
    stop() {
      return (stopping ??= (async () => {
        process.removeListener('exit', killNow);
        if (postmaster.exitCode === null) {
          postmaster.ref(); // unref'd while it ran: waiting for its exit must keep this process alive
          const exited = new Promise((resolve) => postmaster.once('exit', resolve));
          postmaster.kill('SIGINT'); // fast shutdown: open sessions are ended
          await exited;
        }
        rmSync(dir, { recursive: true, force: true });
      })());
    },
  };
}

async function createDatabase(adminUrl: string, prefix = 'roost_test'): Promise<string> {
  const name = `${prefix}_${randomBytes(6).toString('hex')}`;
  // Imported here, not at the top: every file that starts a server loads this helper, most never a database.
  const { default: pg } = await import('pg');
  const client = new pg.Client({ connectionString: adminUrl });
  await client.connect();
  try {
    await client.query(`CREATE DATABASE ${client.escapeIdentifier(name)}`);
  } finally {
    await client.end();
  }
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  return url.toString();
}

/** Set by test/helpers/run-suite.ts for the files it runs: the superuser URL of the run's PostgreSQL. */
export const RUN_POSTGRES_ENV = 'ROOST_TEST_RUN_POSTGRES_URL';

/**
 * The run's PostgreSQL, which this file may add databases to but not stop or restart (other files use
 * it at the same time): a test that stops its server starts one of its own (startPostgres).
 */
function runPostgres(adminUrl: string): TestPostgres {
  const refuse = async () => {
    throw new Error('the run\'s shared PostgreSQL is not this file\'s to stop or restart: use startPostgres()');
  };
  // Each database is a copy of template1 (megabytes): the file's own go when its process ends.
  const created: string[] = [];
  process.once('exit', () => dropDatabases(adminUrl, created));
  return {
    adminUrl,
    dir: '',
    async createDatabase(prefix) {
      const url = await createDatabase(adminUrl, prefix);
      created.push(new URL(url).pathname.slice(1));
      return url;
    },
    stopImmediately: refuse,
    restart: refuse,
    stop: async () => undefined,
  };
}

/** Synchronous (it runs on exit): psql drops the databases, ending any session still on them. */
function dropDatabases(adminUrl: string, names: string[]): void {
  if (names.length === 0) return;
  const sql = names.map((name) => `DROP DATABASE IF EXISTS "${name}" WITH (FORCE);`).join('\n');
  try {
    execFileSync(join(postgresBinDir(), 'psql'), ['-q', '-X', '-v', 'ON_ERROR_STOP=0', adminUrl], { input: sql, stdio: ['pipe', 'ignore', 'ignore'], timeout: 30_000 });
  } catch {
    // the run's server is gone already: its folder goes with it
  }
}

let shared: Promise<TestPostgres> | undefined;

/** The PostgreSQL of this run (npm test) or of this test file (each file runs in its own process), started on first use. */
export function sharedPostgres(): Promise<TestPostgres> {
  const runUrl = process.env[RUN_POSTGRES_ENV];
  return (shared ??= runUrl ? Promise.resolve(runPostgres(runUrl)) : startPostgres());
}

/** Stops the shared server if this file started one (the run's own outlives the file). */
export async function stopSharedPostgres(): Promise<void> {
  const running = shared;
  shared = undefined;
  if (running) await (await running).stop();
}

function userIds(name: string): { uid: number; gid: number } {
  const uid = Number(execFileSync('id', ['-u', name], { encoding: 'utf8' }).trim());
  const gid = Number(execFileSync('id', ['-g', name], { encoding: 'utf8' }).trim());
  return { uid, gid };
}
