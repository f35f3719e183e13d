// What a full disk looks like to the one error module: a real ENOSPC (a write to /dev/full), SQLite's
// and PostgreSQL's codes for it, and the same wrapped as a cause, all become 507 STORAGE_FULL; the log
// line names the code, never the data. Anything else stays 500 INTERNAL.
import assert from 'node:assert/strict';
import { writeFile } from 'node:fs/promises';
import { describe, it } from 'node:test';
import { diskFullLine, isDiskFull, toRoostError } from '../../protocol/errors.js';

describe('a full disk as an error', () => {
  it('answers 507 STORAGE_FULL for ENOSPC from a real write', async (t) => {
    const err = await writeFile('/dev/full', 'data').then(() => undefined, (e: unknown) => e);
    if (!err) return t.skip('/dev/full took the write on this system');
    const answer = toRoostError(err);
    assert.equal(answer.status, 507);
    assert.equal(answer.code, 'STORAGE_FULL');
    assert.equal(diskFullLine(err), 'a write failed: the disk is full (ENOSPC)');
  });

  it("recognises SQLite's and PostgreSQL's codes, an exceeded quota, and a wrapped cause", () => {
    const sqlite = Object.assign(new Error("insert into `t` values ('secret') - SQLITE_FULL: database or disk is full"), { code: 'SQLITE_FULL', errno: 13 });
    const postgres = Object.assign(new Error('could not extend file "base/16384/16385": No space left on device'), { code: '53100' });
    const quota = Object.assign(new Error('EDQUOT: disk quota exceeded, write'), { code: 'EDQUOT' });
    const wrapped = new Error('the migration failed', { cause: sqlite });
    for (const err of [sqlite, postgres, quota, wrapped]) {
      assert.equal(isDiskFull(err), true, String(err));
      assert.equal(toRoostError(err).status, 507);
    }
    assert.doesNotMatch(diskFullLine(sqlite), /secret/);
  });

  it('leaves other failures as 500 INTERNAL', () => {
    for (const err of [new Error('boom'), Object.assign(new Error('SQLITE_BUSY: database is locked'), { code: 'SQLITE_BUSY' }), 'text', null]) {
      assert.equal(toRoostError(err).status, 500);
    }
  });
});
