// The audit log over real HTTP: what gets recorded (mutations that succeed or fail, auth failures,
// grant changes), filters and paging, what each tenant may see, and the hash chain and its signed
// checkpoint that expose rows edited, deleted (the newest ones too) or recomputed in the database
// file while the server was down, and a checkpoint file changed by hand. Every break is reported.
import assert from 'node:assert/strict';
import { createHmac, randomBytes } from 'node:crypto';
import { mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { hashOf } from '../../kernel/audit/chain.js';
import { sqliteFilesOnly, startTestServer, type TestServer } from '../helpers/server.js';
import { changeRows, selectRows } from './sqlite-file.js';

describe('audit log', { timeout: 55_000 }, () => {
  const instanceKey = `rk_test_${randomBytes(16).toString('hex')}`;
  const env = { ROOST_API_KEY: instanceKey };
  let server: TestServer;
  let dataDir: string;
  let workDir: string;
  const a = { tenantId: '', key: '', actor: '', viewerKey: '', viewerHash: '' };
  const b = { tenantId: '', key: '' };

  /** The audit log as the instance owner (or the given key) sees it. */
  const audit = async (query = '', key?: string) => {
    const res = await server.api('GET', `/api/audit-log${query ? `?${query}` : ''}`, { key });
    assert.equal(res.status, 200, res.text);
    return res.body as { entries: any[]; total: number; limit: number; offset: number };
  };
  const q = (params: Record<string, string>) => new URLSearchParams(params).toString();

  before(async () => {
    server = await startTestServer({ env });
    dataDir = server.dataDir;
    workDir = await mkdtemp(join(tmpdir(), 'roost-audit-'));
    for (const [target, org] of [[a, 'Audited A'], [b, 'Audited B']] as const) {
      const res = await server.api('POST', '/api/tenants/register', { body: { org } });
      target.tenantId = res.body.tenant.id;
      target.key = res.body.apiKey;
      if (target === a) a.actor = `key:${res.body.keyHash.slice(0, 12)}`;
    }
  });
  after(async () => {
    await server.cleanup();
    await rm(dataDir, { recursive: true, force: true });
    await rm(workDir, { recursive: true, force: true });
  });

  it('records every mutation, successful or not, with its tenant, actor and status', async () => {
    assert.equal((await server.api('POST', '/api/projects', { key: a.key, body: { name: 'audited', workingDir: workDir } })).status, 201);
    assert.equal((await server.api('POST', '/api/projects', { key: a.key, body: { name: 'bad' } })).status, 400);
    assert.equal((await server.api('DELETE', '/api/projects/00000000-0000-0000-0000-000000000000', { key: a.key })).status, 404);
    assert.equal((await server.api('POST', '/api/projects', { key: a.key, raw: '{broken' })).status, 400);
    const { entries, total } = await audit(q({ action: 'POST /api/projects', actor: a.actor }));
    assert.equal(total, 3);
    assert.deepEqual(entries.map((e) => e.detail.status), [400, 400, 201], 'newest first');
    for (const e of entries) {
      assert.equal(e.tenantId, a.tenantId);
      assert.equal(e.resource, '/api/projects');
      assert.equal(e.detail.extension, 'projects');
      assert.match(e.ts, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
      assert.match(e.hash, /^[0-9a-f]{64}$/);
    }
    const deleted = await audit(q({ action: 'DELETE /api/projects/:id', actor: a.actor }));
    assert.equal(deleted.entries[0].detail.status, 404);
    assert.equal((await audit(q({ action: 'tenant.register' }))).total, 2);
  });

  it('records auth failures: missing and wrong keys, and refused roles', async () => {
    const member = await server.api('POST', '/api/tenants/me/members', { key: a.key, body: { role: 'viewer' } });
    a.viewerKey = member.body.apiKey;
    a.viewerHash = member.body.keyHash;
    assert.equal((await server.api('GET', '/api/projects', { key: 'rk_wrong' })).status, 403);
    assert.equal((await server.api('POST', '/api/projects', { headers: { authorization: 'Basic eDp5' }, body: {} })).status, 403);
    assert.equal((await server.api('POST', '/api/projects', { key: a.viewerKey, body: { name: 'v', workingDir: workDir } })).status, 403);
    assert.equal((await server.api('GET', '/api/tenants/me/members', { key: a.viewerKey })).status, 403);

    const failures = await audit(q({ action: 'auth.failure' }));
    assert.deepEqual(failures.entries.map((e) => [e.resource, e.detail.code, e.tenantId]), [
      ['POST /api/projects', 'INVALID_API_KEY', null],
      ['GET /api/projects', 'INVALID_API_KEY', null],
    ]);
    const viewerActor = `key:${a.viewerHash.slice(0, 12)}`;
    const refused = await audit(q({ actor: viewerActor }));
    assert.deepEqual(refused.entries.map((e) => [e.action, e.detail.status ?? e.detail.code]), [
      ['auth.forbidden', 'FORBIDDEN'],
      ['POST /api/projects', 403],
    ]);
    for (const e of refused.entries) assert.equal(e.tenantId, a.tenantId);
  });

  it('records grant changes: capabilities granted and revoked, members added and removed', async () => {
    assert.equal((await server.api('POST', '/api/plugins/projects/grant', { body: { capability: 'network' } })).status, 200);
    assert.equal((await server.api('POST', '/api/plugins/projects/revoke', { body: { capability: 'network' } })).status, 200);
    assert.equal((await server.api('POST', '/api/plugins/projects/grant', { key: a.key, body: { capability: 'exec' } })).status, 403);
    assert.equal((await server.api('DELETE', `/api/tenants/me/members/${a.viewerHash}`, { key: a.key })).status, 204);

    const grants = await audit(q({ action: 'grant.' }));
    assert.deepEqual(grants.entries.map((e) => [e.action, e.resource, e.detail.capability ?? e.detail.role]), [
      ['grant.member_removed', `member:${a.viewerHash}`, 'viewer'],
      ['grant.capability_revoked', 'extension:projects', 'network'],
      ['grant.capability_granted', 'extension:projects', 'network'],
      ['grant.member_added', `member:${a.viewerHash}`, 'viewer'],
    ]);
    // Filters take `_` and `%` literally.
    assert.deepEqual((await audit(q({ action: 'grant.member_added' }))).entries.map((e) => e.action), ['grant.member_added']);
    assert.equal((await audit(q({ action: 'grant.member%' }))).total, 0);
    assert.equal((await audit(q({ resource: `member:${a.viewerHash}` }))).total, 2);
    const refusedGrant = await audit(q({ action: 'POST /api/plugins/:name/grant' }));
    assert.deepEqual(refusedGrant.entries.map((e) => e.detail.status), [403, 200]);
  });

  it('filters by time and pages with limit, offset and total', async () => {
    const all = await audit('limit=500');
    assert.ok(all.total >= 15, `total ${all.total}`);
    assert.equal(all.entries.length, all.total);
    const seqs = all.entries.map((e) => e.seq);
    assert.deepEqual(seqs, [...seqs].sort((x, y) => y - x), 'newest first');

    const page1 = await audit('limit=4&offset=0');
    const page2 = await audit('limit=4&offset=4');
    assert.equal(page1.total, all.total);
    assert.equal(page2.total, all.total);
    assert.deepEqual([...page1.entries, ...page2.entries].map((e) => e.seq), seqs.slice(0, 8));
    assert.equal((await audit(`offset=${all.total}`)).entries.length, 0);

    const middle = all.entries[Math.floor(all.entries.length / 2)];
    const since = await audit(q({ since: middle.ts, limit: '500' }));
    assert.equal(since.total, all.entries.filter((e) => e.ts >= middle.ts).length);
    assert.ok(since.entries.every((e) => e.ts >= middle.ts));
    const until = await audit(q({ until: middle.ts, limit: '500' }));
    assert.equal(until.total, all.entries.filter((e) => e.ts <= middle.ts).length);
    assert.equal(since.total + until.total, all.total + all.entries.filter((e) => e.ts === middle.ts).length);
    // The same instant written with another offset selects the same entries.
    const shifted = new Date(Date.parse(middle.ts) + 2 * 3600_000).toISOString().replace('Z', '+02:00');
    assert.equal((await audit(q({ since: shifted, limit: '500' }))).total, since.total);
    assert.equal((await audit(q({ until: '2000-01-01T00:00:00Z' }))).total, 0);
    assert.equal((await audit(q({ since: '2999-01-01T00:00:00Z' }))).total, 0);
  });

  it('shows a tenant only its own entries; the instance owner sees all', async () => {
    const seenByA = await audit('limit=500', a.key);
    assert.ok(seenByA.total > 0);
    assert.ok(seenByA.entries.every((e) => e.tenantId === a.tenantId));
    assert.ok(seenByA.entries.some((e) => e.action === 'POST /api/projects'));
    const seenByB = await audit(q({ limit: '500', tenantId: a.tenantId }), b.key);
    assert.ok(seenByB.entries.every((e) => e.tenantId === b.tenantId), 'a tenantId filter cannot widen a tenant view');
    assert.deepEqual(seenByB.entries.map((e) => e.action), ['tenant.register']);
    const ownerFiltered = await audit(q({ limit: '500', tenantId: a.tenantId }));
    assert.equal(ownerFiltered.total, seenByA.total);
    const everything = await audit('limit=1', instanceKey);
    assert.ok(everything.total > seenByA.total + seenByB.total, 'the instance owner sees every tenant and the anonymous entries');
  });

  it('verifies the chain, for the instance owner only', async () => {
    assert.equal((await server.api('GET', '/api/audit-log/verify', { key: a.key })).status, 403);
    const report = await server.api('GET', '/api/audit-log/verify');
    assert.equal(report.status, 200);
    assert.equal(report.body.valid, true);
    assert.equal(report.body.checked, (await audit('limit=1')).total);
  });

  it('finds a row edited in the database while the server was down', { skip: sqliteFilesOnly }, async () => {
    const target = (await audit(q({ action: 'POST /api/projects', actor: a.actor }))).entries.at(-1)!;
    await server.stop();
    const kernelDb = join(dataDir, 'kernel.sqlite');
    assert.equal(await changeRows(kernelDb, 'UPDATE audit_log SET actor = ? WHERE seq = ?', ['key:someone-else', target.seq]), 1);
    server = await startTestServer({ env, dataDir });
    const report = await server.api('GET', '/api/audit-log/verify');
    assert.equal(report.body.valid, false);
    assert.equal(report.body.brokenAt, target.seq);
    assert.match(report.body.reason, /altered/);
    assert.equal(report.body.checked, (await audit('limit=1')).total, 'the walk goes on past a break');
    // New entries still chain on; the break stays where it was.
    assert.equal((await server.api('POST', '/api/projects', { key: a.key, body: { name: 'after', workingDir: workDir } })).status, 201);
    assert.equal((await server.api('GET', '/api/audit-log/verify')).body.brokenAt, target.seq);
  });

  it('finds a row deleted from the database while the server was down', { skip: sqliteFilesOnly }, async () => {
    const rows = await selectRows(join(dataDir, 'kernel.sqlite'), 'SELECT seq, actor FROM audit_log WHERE actor = ?', ['key:someone-else']);
    const edited = rows[0].seq as number;
    const all = (await audit('limit=500')).entries.map((e) => e.seq).sort((x, y) => x - y);
    const victim = all[Math.floor(all.length / 2)]!;
    await server.stop();
    const kernelDb = join(dataDir, 'kernel.sqlite');
    assert.equal(await changeRows(kernelDb, 'UPDATE audit_log SET actor = ? WHERE seq = ?', [a.actor, edited]), 1, 'undo the edit');
    assert.equal(await changeRows(kernelDb, 'DELETE FROM audit_log WHERE seq = ?', [victim]), 1);
    server = await startTestServer({ env, dataDir });
    const report = await server.api('GET', '/api/audit-log/verify');
    assert.equal(report.body.valid, false);
    assert.equal(report.body.brokenAt, victim);
    assert.match(report.body.reason, /missing/);
  });

  /** Stops the server, changes its files, starts it again on the same data dir. */
  const whileDown = async (change: (kernelDb: string) => Promise<void>) => {
    await server.stop();
    await change(join(dataDir, 'kernel.sqlite'));
    server = await startTestServer({ env, dataDir });
  };
  const verify = async () => (await server.api('GET', '/api/audit-log/verify')).body as { valid: boolean; checked: number; brokenAt: number; reason: string; breaks: Array<{ seq: number; reason: string }>; checkpoint: { seq: number; hash: string; ts: string } };
  /** Read while the server is down: a running server appends its audit entries a moment after it answers. */
  const newestSeq = async () => (await selectRows(join(dataDir, 'kernel.sqlite'), 'SELECT MAX(seq) AS seq FROM audit_log'))[0].seq as number;
  const writeEntry = async (name: string) => assert.equal((await server.api('POST', '/api/projects', { key: a.key, body: { name, workingDir: workDir } })).status, 201);

  it('keeps a signed checkpoint of the head in the data dir, under a key only the owner can read', { skip: sqliteFilesOnly }, async () => {
    await writeEntry('checkpointed');
    const report = await verify();
    assert.equal(report.checkpoint.seq, await newestSeq());
    const stored = JSON.parse(await readFile(join(dataDir, 'audit-head.json'), 'utf8'));
    assert.deepEqual({ seq: stored.seq, hash: stored.hash }, { seq: report.checkpoint.seq, hash: report.checkpoint.hash });
    assert.match(stored.mac, /^[0-9a-f]{64}$/);
    assert.equal((await stat(join(dataDir, 'audit.key'))).mode & 0o777, 0o600);
  });

  it('finds the newest rows deleted while the server was down, and never reuses their sequence numbers', { skip: sqliteFilesOnly }, async () => {
    let newest = 0;
    await whileDown(async (kernelDb) => {
      newest = await newestSeq();
      assert.equal(await changeRows(kernelDb, 'DELETE FROM audit_log WHERE seq > ?', [newest - 3]), 3);
    });
    await writeEntry('after-the-cut');
    const after = (await audit(q({ action: 'POST /api/projects', actor: a.actor }))).entries[0];
    assert.ok(after.seq > newest, `the new entry takes seq ${after.seq}, after the deleted ${newest}`);
    const report = await verify();
    assert.equal(report.valid, false);
    assert.ok(report.breaks.some((b) => b.seq === newest - 2 && b.reason === `entries ${newest - 2}–${newest} are missing`), JSON.stringify(report.breaks));
    assert.ok(report.breaks.some((b) => new RegExp(`^at a start-up, entries ${newest - 2}–${newest} are missing from the end of the log`).test(b.reason)), 'the start-up noticed the cut');
  });

  it('finds a chain recomputed after an edit, with every hash rewritten', { skip: sqliteFilesOnly }, async () => {
    await writeEntry('to-be-hidden');
    await writeEntry('to-be-rehashed');
    let newest = 0;
    await whileDown(async (kernelDb) => {
      newest = await newestSeq();
      const rows = await selectRows(kernelDb, 'SELECT * FROM audit_log WHERE seq >= ? ORDER BY seq', [newest - 1]);
      assert.equal(rows.length, 2);
      let prev = rows[0].prev_hash as string;
      for (const row of rows) {
        const forged = { ...row, actor: row.seq === newest - 1 ? 'key:innocent' : row.actor, prev_hash: prev };
        forged.hash = hashOf(forged);
        assert.equal(await changeRows(kernelDb, 'UPDATE audit_log SET actor = ?, prev_hash = ?, hash = ? WHERE seq = ?', [forged.actor, forged.prev_hash, forged.hash, row.seq]), 1);
        prev = forged.hash;
      }
    });
    const report = await verify();
    assert.ok(!report.breaks.some((b) => b.seq >= newest - 1 && /altered|previous hash/.test(b.reason)), 'the chain itself is consistent again');
    assert.ok(report.breaks.some((b) => b.seq > newest && new RegExp(`entry ${newest} does not match the checkpoint`).test(b.reason)), JSON.stringify(report.breaks));
  });

  it('finds a checkpoint file changed by hand or forged, and one removed', async () => {
    const head = join(dataDir, 'audit-head.json');
    await whileDown(async () => {
      const stored = JSON.parse(await readFile(head, 'utf8'));
      await writeFile(head, JSON.stringify({ ...stored, seq: stored.seq - 2 }));
    });
    const changed = await verify();
    assert.ok(changed.breaks.some((b) => /signature does not match/.test(b.reason)), JSON.stringify(changed.breaks));
    const forgedBefore = changed.breaks.length;
    await whileDown(async () => {
      const stored = JSON.parse(await readFile(head, 'utf8'));
      const mac = createHmac('sha256', 'a guessed key').update(`${stored.seq}\n${stored.hash}\n${stored.ts}`).digest('hex');
      await writeFile(head, JSON.stringify({ ...stored, mac }));
    });
    const forged = await verify();
    assert.equal(forged.breaks.filter((b) => /signature does not match/.test(b.reason)).length, 2, JSON.stringify(forged.breaks));
    assert.equal(forged.breaks.length, forgedBefore + 1);
    await whileDown(() => rm(head));
    assert.ok((await verify()).breaks.some((b) => /checkpoint file is missing/.test(b.reason)));
  });

  it('reports every break, in order, the first one also as brokenAt and reason', { skip: sqliteFilesOnly }, async () => {
    const report = await verify();
    const reasons = report.breaks.map((b) => b.reason);
    for (const kind of [/^entry \d+ is missing$/, /^entries \d+–\d+ are missing$/, /does not match the checkpoint/, /signature does not match/, /checkpoint file is missing/]) {
      assert.ok(reasons.some((r) => kind.test(r)), `${kind} in ${JSON.stringify(reasons)}`);
    }
    const seqs = report.breaks.map((b) => b.seq);
    assert.deepEqual(seqs, [...seqs].sort((x, y) => x - y));
    assert.equal(report.brokenAt, report.breaks[0]!.seq);
    assert.equal(report.reason, report.breaks[0]!.reason);
    assert.equal(report.checked, (await audit('limit=1')).total);
  });
});
