// A mutating request is not acknowledged without its audit entry. The kernel's audit table is made to
// refuse inserts (a trigger raising what a full disk raises: SQLITE_FULL's message, PostgreSQL's
// SQLSTATE 53100; then any other error) while the server runs, on the store of this run. The request
// whose entry fails answers 507 (or 503), not 2xx, saying its change may have been made; the next one is
// refused before it runs; verify names the lost entry, first from memory, then from the chain once the
// log can write again; and with the trigger gone the same requests succeed with no restart.
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { Knex } from 'knex';
import { openDatabase } from '../../lib/storage.js';
import { startTestServer, type TestServer } from '../helpers/server.js';

describe('a mutation whose audit entry cannot be written', { timeout: 60_000 }, () => {
  let server: TestServer;
  let kernelDb: Knex;
  let workDir: string;
  let key = '';

  const pg = () => server.databaseUrl !== null;
  /** Makes every insert into audit_log fail: as a full disk does (`full`), or with another error. */
  const refuseAudit = async (full: boolean) => {
    if (!pg()) {
      const message = full ? 'database or disk is full' : 'the audit table refuses (test)';
      await kernelDb.raw(`CREATE TRIGGER refuse_audit BEFORE INSERT ON audit_log BEGIN SELECT RAISE(ABORT, '${message}'); END`);
      return;
    }
    const errcode = full ? '53100' : 'P0001';
    await kernelDb.raw(`CREATE FUNCTION refuse_audit() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN RAISE EXCEPTION 'the audit table refuses (test)' USING ERRCODE = '${errcode}'; END $$`);
    await kernelDb.raw('CREATE TRIGGER refuse_audit BEFORE INSERT ON audit_log FOR EACH STATEMENT EXECUTE FUNCTION refuse_audit()');
  };
  const allowAudit = async () => {
    if (!pg()) return void (await kernelDb.raw('DROP TRIGGER refuse_audit'));
    await kernelDb.raw('DROP TRIGGER refuse_audit ON audit_log');
    await kernelDb.raw('DROP FUNCTION refuse_audit()');
  };
  const createProject = (name: string) => server.api('POST', '/api/projects', { key, body: { name, workingDir: workDir } });
  const projectNames = async () => ((await server.api('GET', '/api/projects', { key })).body.projects as Array<{ name: string }>).map((p) => p.name);
  const verify = async () => (await server.api('GET', '/api/audit-log/verify')).body as { valid: boolean; breaks: Array<{ seq: number; reason: string }> };

  before(async () => {
    server = await startTestServer();
    workDir = await mkdtemp(join(tmpdir(), 'roost-audit-unwritable-'));
    kernelDb = server.databaseUrl
      ? openDatabase({ client: 'pg', connection: server.databaseUrl, schema: 'roost_kernel' })
      : openDatabase({ client: 'sqlite3', connection: { filename: join(server.dataDir, 'kernel.sqlite') } });
    key = (await server.api('POST', '/api/tenants/register', { body: { org: 'Audited' } })).body.apiKey;
    assert.equal((await createProject('before')).status, 201);
    assert.equal((await verify()).valid, true);
  });
  after(async () => {
    await kernelDb?.destroy();
    await server?.cleanup();
    if (workDir) await rm(workDir, { recursive: true, force: true });
  });

  it('answers 507, not 2xx, refuses what follows before it runs, and verify names the loss', async () => {
    await refuseAudit(true);
    const ran = await createProject('ran-unaudited');
    assert.equal(ran.status, 507, ran.text);
    assert.equal(ran.body.code, 'STORAGE_FULL');
    assert.deepEqual(ran.body.details, { audit: 'not_recorded', outcome: 201 });
    assert.match(ran.body.error, /may have been made/);

    const refused = await createProject('refused');
    assert.equal(refused.status, 507, refused.text);
    assert.match(refused.body.error, /^nothing was done/);
    const names = await projectNames();
    assert.ok(names.includes('ran-unaudited'), 'the change was made: the answer said it may have been');
    assert.ok(!names.includes('refused'), 'the refused request made nothing');

    const during = await verify();
    assert.equal(during.valid, false);
    assert.ok(during.breaks.some((b) => /^1 audit entry could not be written since .* \(the disk was full\), and are not in the log yet$/.test(b.reason)), JSON.stringify(during.breaks));
  });

  it('works again once the audit log can write, with the loss recorded in the chain', async () => {
    await allowAudit();
    assert.equal((await createProject('after')).status, 201);
    const report = await verify();
    assert.equal(report.valid, false, 'a lost entry stays a break');
    assert.ok(report.breaks.some((b) => /^1 audit entry could not be written between .* \(the disk was full\): they are not in the log$/.test(b.reason)), JSON.stringify(report.breaks));
    assert.ok(!report.breaks.some((b) => /not in the log yet/.test(b.reason)));
    const lost = (await server.api('GET', '/api/audit-log?action=audit.entries_lost')).body.entries;
    assert.equal(lost.length, 1);
    assert.equal(lost[0].detail.count, 1);
  });

  it('answers 503 with Retry-After when the audit log fails for another reason', async () => {
    await refuseAudit(false);
    try {
      const res = await createProject('ran-unaudited-2');
      assert.equal(res.status, 503, res.text);
      assert.equal(res.body.code, 'AUDIT_UNAVAILABLE');
      assert.ok(Number(res.headers.get('retry-after')) > 0);
    } finally {
      await allowAudit();
    }
    assert.equal((await createProject('after-2')).status, 201);
  });
});
