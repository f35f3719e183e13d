// A network namespace that reaches no other machine, and where every attempt to is seen at the socket
// layer rather than taken on trust from the code. Besides loopback it has one interface, one end of a veth
// pair whose other end is inside too, and it carries the default route and the resolver's address
// (/etc/netns/<name>/resolv.conf): a DNS query or a connection to any address off this machine sends a
// packet there (an ARP request for it first), which the interface's counter shows, and the neighbour table
// names the address. Nothing leaves: the pair leads nowhere. IPv6 is off, so nothing is sent on its own.
// The test process and the browser stay outside; Unix sockets in the file system carry chosen TCP ports
// in and out (forward.mjs), so the server inside still sees its callers as local.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { execa } from 'execa';
import { findExecutable } from '../../lib/bwrap.js';

const FORWARD = fileURLToPath(new URL('./forward.mjs', import.meta.url));
/** The resolver inside: an address of no machine (198.18.0.0/15 is the benchmarking range), reached only through the pair. */
const RESOLVER = '198.18.0.53';

export interface QuietNamespace {
  /** The argv prefix that runs a command inside. */
  exec: string[];
  /** Packets sent towards other machines so far (ARP requests and IPv4). */
  sent(): Promise<number>;
  /** What was tried, for a failure's message: every address a packet went to, and the sockets still trying. */
  attempts(): Promise<string>;
  /** Makes 127.0.0.1:port inside answer at 127.0.0.1:port outside (a server inside, its clients outside). */
  expose(port: number): Promise<void>;
  /** Makes 127.0.0.1:port outside answer at 127.0.0.1:port inside (a fake provider outside, the server inside). */
  reach(port: number): Promise<void>;
  close(): Promise<void>;
}

/** Why a quiet namespace cannot be made here (a reason to skip), or false. */
export function quietNamespaceUnavailable(): string | false {
  if (process.getuid?.() !== 0) return 'making a network namespace needs root';
  if (!findExecutable('ip')) return 'iproute2 (ip) is not installed';
  return false;
}

export async function createQuietNamespace(): Promise<QuietNamespace> {
  const name = `roost-quiet-${process.pid}`;
  const etc = join('/etc/netns', name);
  const sockets = await mkdtemp(join(tmpdir(), 'roost-quiet-'));
  const forwarders: ChildProcess[] = [];
  const inside = ['ip', 'netns', 'exec', name];
  const ip = (...args: string[]) => execa('ip', ['-n', name, ...args]);

  await execa('ip', ['netns', 'add', name]);
  await mkdir(etc, { recursive: true });
  await writeFile(join(etc, 'resolv.conf'), `nameserver ${RESOLVER}\n`);
  // Before the pair exists, so it is made without IPv6 (whose link-local start-up would send on its own).
  await execa(inside[0]!, [...inside.slice(1), 'sysctl', '-qw', 'net.ipv6.conf.all.disable_ipv6=1', 'net.ipv6.conf.default.disable_ipv6=1']);
  await ip('link', 'set', 'lo', 'up');
  await ip('link', 'add', 'quiet0', 'type', 'veth', 'peer', 'name', 'quiet1');
  await ip('addr', 'add', '198.18.0.1/15', 'dev', 'quiet0');
  await ip('link', 'set', 'quiet0', 'up');
  await ip('link', 'set', 'quiet1', 'up');
  await ip('route', 'add', 'default', 'dev', 'quiet0');

  const forward = async (prefix: string[], from: string, to: string) => {
    const [command, ...args] = [...prefix, process.execPath, FORWARD, from, to];
    const child = spawn(command!, args, { stdio: ['pipe', 'pipe', 'inherit'] });
    forwarders.push(child);
    await new Promise<void>((resolve, reject) => {
      child.stdout!.once('data', () => resolve());
      child.once('exit', (code) => reject(new Error(`forward.mjs ${from} ${to} exited with ${code}`)));
    });
  };

  return {
    exec: inside,
    async sent() {
      const [link] = JSON.parse((await execa('ip', ['-n', name, '-j', '-s', 'link', 'show', 'dev', 'quiet0'])).stdout) as Array<{ stats64: { tx: { packets: number } } }>;
      return link!.stats64.tx.packets;
    },
    async attempts() {
      const neighbours = (await ip('neigh', 'show', 'dev', 'quiet0')).stdout;
      const trying = (await execa(inside[0]!, [...inside.slice(1), 'ss', '-tunap', 'state', 'syn-sent'], { reject: false })).stdout;
      return `addresses tried:\n${neighbours || '(none)'}\nsockets still trying:\n${trying}`;
    },
    async expose(port) {
      const path = join(sockets, `in-${port}.sock`);
      await forward(inside, `unix:${path}`, `tcp:${port}`);
      await forward([], `tcp:${port}`, `unix:${path}`);
    },
    async reach(port) {
      const path = join(sockets, `out-${port}.sock`);
      await forward([], `unix:${path}`, `tcp:${port}`);
      await forward(inside, `tcp:${port}`, `unix:${path}`);
    },
    async close() {
      for (const child of forwarders) child.stdin!.end();
      await Promise.all(forwarders.map((child) => (child.exitCode === null ? new Promise((resolve) => child.once('exit', resolve)) : undefined)));
      await execa('ip', ['netns', 'delete', name], { reject: false });
      await rm(etc, { recursive: true, force: true });
      await rm(sockets, { recursive: true, force: true });
    },
  };
}
