// `roost serve` as a person or a script starts it: the URL (or, with --json, one document) as soon as
// the port listens, so --port 0 is usable; a port someone else holds fails at once with PORT_IN_USE.
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:net';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { execa } from 'execa';
import { roost, roostBin } from '../helpers/cli.js';
import { assertSchema } from './json-schema.js';

describe('roost serve', () => {
  let dataDir: string;
  let holder: Server;
  let heldPort: number;
  before(async () => {
    dataDir = await mkdtemp(join(tmpdir(), 'roost-serve-'));
    holder = createServer().listen(0, '127.0.0.1');
    await new Promise((resolve) => holder.once('listening', resolve));
    heldPort = (holder.address() as { port: number }).port;
  });
  after(async () => {
    holder.close();
    await rm(dataDir, { recursive: true, force: true });
  });

  it('prints one document with its URL as soon as it listens on --port 0, and exits 0 on SIGTERM', async () => {
    const child = execa(process.execPath, [roostBin, 'serve', '--port', '0', '--data-dir', dataDir, '--json'], { reject: false, stdin: 'ignore' });
    let stdout = '';
    child.stdout!.setEncoding('utf8');
    const firstLine = await new Promise<string>((resolve) => child.stdout!.on('data', (chunk: string) => {
      stdout += chunk;
      if (stdout.includes('\n')) resolve(stdout.slice(0, stdout.indexOf('\n')));
    }));
    const doc = assertSchema('serve', JSON.parse(firstLine));
    assert.equal(doc.url, `http://127.0.0.1:${doc.port}`);
    assert.equal(doc.pid, child.pid);
    assert.equal(doc.dataDir, dataDir);
    const live = await fetch(`${doc.url}/health/live`);
    assert.equal(live.status, 200);
    child.kill('SIGTERM');
    const exit = await child;
    assert.equal(exit.exitCode, 0);
    assert.equal(String(exit.stdout).trim(), firstLine, 'one document on stdout, nothing after it');
  });

  it('says PORT_IN_USE at once when the port is taken, with a hint', async () => {
    const text = await roost(['serve', '--port', String(heldPort), '--data-dir', dataDir], { cwd: dataDir });
    assert.equal(text.code, 1);
    assert.match(text.stderr, new RegExp(`port ${heldPort} is already in use on 127\\.0\\.0\\.1: .*--port 0 takes a free one`));
    const json = await roost(['serve', '--port', String(heldPort), '--data-dir', dataDir, '--json'], { cwd: dataDir });
    assert.equal(json.code, 1);
    assert.equal(assertSchema('error', json.json).error.code, 'PORT_IN_USE');
  });
});
