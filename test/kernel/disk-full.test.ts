// A full disk under a running server: its data dir is a small tmpfs (mounted here; tests run as root),
// filled to the last byte by a filler file. Mutations answer 507 STORAGE_FULL, never 500; what was
// acknowledged before stays; the audit log's verify tells the truth about any entry it lost; and once the
// filler is deleted the same requests succeed again with no restart. On SQLite the kernel's and the
// extensions' databases live in the data dir; with ROOST_TEST_POSTGRES=1 a PostgreSQL cluster of this
// file's own has its data directory on the same tmpfs.
import assert from 'node:assert/strict';
import { mkdir, mkdtemp, readdir, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { startPostgres, type TestPostgres } from '../helpers/postgres.js';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { fillDisk, mountSmallDisk, unmountSmallDisk } from '../helpers/small-disk.js';

const onPostgres = process.env.ROOST_TEST_POSTGRES === '1';
/** Room for the data dir, and on PostgreSQL for a fresh cluster (about 40 MB) and its first WAL segment. */
const TMPFS_SIZE = onPostgres ? '96m' : '24m';

describe('a full disk', { timeout: 120_000 }, () => {
  let mounted: { dir: string } | { skip: string } = { skip: 'not mounted yet' };
  let server: TestServer | undefined;
  let postgres: TestPostgres | undefined;
  let databaseUrl: string | undefined;
  let workDir: string;
  let key = '';
  let projectId = '';
  /** The description of the last acknowledged update, and those of updates whose answer said they may have been made. */
  let acknowledged = '';
  const maybe = new Set<string>();
  const filler = () => join((mounted as { dir: string }).dir, 'filler');

  const createProject = (name: string) => server!.api('POST', '/api/projects', { key, body: { name, workingDir: workDir } });
  const describeAs = (text: string) => server!.api('PUT', `/api/projects/${projectId}`, { key, body: { description: text } });
  const storedDescription = async () => (await server!.api('GET', `/api/projects/${projectId}`, { key })).body.description as string;
  /** Kilobytes per update, so the WALs fill in a few hundred requests. */
  const description = (i: number) => `update ${i} `.padEnd(4000, 'x');
  const verify = async () => (await server!.api('GET', '/api/audit-log/verify')).body as { valid: boolean; breaks: Array<{ seq: number; reason: string }> };
  const losses = (report: { breaks: Array<{ reason: string }> }) => report.breaks.filter((b) => /could not be written/.test(b.reason));

  const dataDir = () => join((mounted as { dir: string }).dir, 'data');
  const start = async () => {
    await mkdir(dataDir(), { recursive: true });
    return startTestServer({ dataDir: dataDir(), ...(databaseUrl ? { databaseUrl } : {}) });
  };

  before(async () => {
    mounted = await mountSmallDisk(TMPFS_SIZE);
    if ('skip' in mounted) return;
    workDir = await mkdtemp(join(tmpdir(), 'roost-full-work-'));
    if (onPostgres) {
      postgres = await startPostgres({ parent: mounted.dir });
      databaseUrl = await postgres.createDatabase();
    }
    server = await start();
    key = (await server.api('POST', '/api/tenants/register', { body: { org: 'Full' } })).body.apiKey;
    const first = await createProject('full');
    assert.equal(first.status, 201, first.text);
    projectId = first.body.id;
    acknowledged = description(0);
    assert.equal((await describeAs(acknowledged)).status, 200);
  });
  after(async () => {
    await server?.stop();
    await postgres?.stop();
    if ('dir' in mounted) await unmountSmallDisk(mounted.dir);
    if (workDir) await rm(workDir, { recursive: true, force: true });
  });

  const skip = () => ('skip' in mounted ? mounted.skip : false);

  it('answers 507, never 500, keeps every acknowledged write, and verify tells the truth', async (t) => {
    if (skip()) return t.skip(String(skip()));
    await fillDisk(filler());
    // The WALs may still have room for a few commits: write until the disk shows.
    let refusals = 0;
    let ran = 0;
    for (let i = 1; refusals < 3 && i < 3000; i++) {
      const res = await describeAs(description(i));
      if (!/^nothing was done/.test(res.body?.error ?? '')) ran++;
      if (res.status === 200) {
        acknowledged = description(i);
        maybe.clear();
        continue;
      }
      assert.equal(res.status, 507, res.text);
      assert.equal(res.body.code, 'STORAGE_FULL');
      assert.match(res.body.error, /disk/);
      if (res.body.details?.outcome !== undefined) maybe.add(description(i));
      refusals++;
    }
    const created = await createProject('while-full');
    assert.equal(created.status, 507, created.text);
    assert.equal(refusals, 3, 'the full disk showed');
    const unload = await server!.api('POST', '/api/plugins/projects/unload?force=true');
    assert.equal(unload.status, 507, unload.text);
    assert.equal(unload.body.code, 'STORAGE_FULL');

    const stored = await storedDescription();
    assert.ok(stored === acknowledged || maybe.has(stored), `the last acknowledged update is kept: ${stored.slice(0, 20)}`);
    // Every update that ran (all but those refused before they ran) has its entry, or is counted as lost.
    const report = await verify();
    assert.equal(losses(report).length, report.breaks.length, `no other break: ${JSON.stringify(report.breaks)}`);
    const lost = losses(report).reduce((n, b) => n + Number(/^(\d+) audit entr/.exec(b.reason)?.[1]), 0);
    const entries = (await server!.api('GET', `/api/audit-log?${new URLSearchParams({ action: 'PUT /api/projects/:id', limit: '1' })}`)).body.total as number;
    assert.equal(entries - 1 + lost, ran, `${entries - 1} entries and ${lost} lost for ${ran} updates that ran`);
    assert.equal(report.valid, lost === 0);
  });

  it('works again once space is freed, with no restart', async (t) => {
    if (skip()) return t.skip(String(skip()));
    const before = await verify();
    await rm(filler());
    const res = await describeAs(description(5000));
    assert.equal(res.status, 200, res.text);
    assert.equal(await storedDescription(), description(5000));
    assert.equal((await createProject('after-full')).status, 201);
    const report = await verify();
    assert.equal(report.valid, before.valid);
    assert.ok(!report.breaks.some((b) => /not in the log yet/.test(b.reason)), 'a loss is recorded in the chain once it can be');
    const unload = await server!.api('POST', '/api/plugins/projects/unload?force=true');
    assert.equal(unload.status, 200, unload.text);
    assert.equal((await server!.api('POST', '/api/plugins/load', { body: { name: 'projects' } })).status, 201);
    assert.equal((await createProject('reloaded')).status, 201);
    assert.equal(await storedDescription(), description(5000));
    // Every WAL is back within its bound (journal_size_limit) once it was reset.
    for (const file of await walFiles((mounted as { dir: string }).dir)) {
      assert.ok((await stat(file)).size <= 1024 * 1024 + 64 * 1024, `${file} is bounded`);
    }
  });


  it('keeps the count of entries it lost over a restart while the disk is full, and records it once it can', async (t) => {
    if (skip()) return t.skip(String(skip()));
    await fillDisk(filler());
    let pending: { reason: string } | undefined;
    for (let i = 0; !pending && i < 3000; i++) {
      const res = await describeAs(description(6000 + i));
      assert.ok(res.status === 200 || res.status === 507, res.text);
      if (res.status === 507) pending = (await verify()).breaks.find((b) => /not in the log yet$/.test(b.reason));
    }
    assert.ok(pending, 'an append was lost');
    const count = Number(/^(\d+)/.exec(pending.reason)![1]);
    // The kernel's count lives only in memory and in the checkpoint (written in place: no room for a new file).
    await server!.stop();
    await rm(filler());
    server = await start();
    assert.equal((await describeAs(description(9000))).status, 200);
    const report = await verify();
    const recorded = report.breaks.find((b) => /\(counted by the checkpoint before a restart\): they are not in the log$/.test(b.reason));
    assert.ok(recorded, JSON.stringify(report.breaks));
    assert.ok(Number(/^(\d+)/.exec(recorded.reason)![1]) >= count, 'every lost entry is counted');
  });
});

async function walFiles(dir: string): Promise<string[]> {
  const entries = await readdir(dir, { recursive: true });
  return entries.filter((e) => e.endsWith('-wal')).map((e) => join(dir, e));
}
