// Protected files (package.json, schema.ts, .env …) are never written by an agent, whatever the
// permission mode, symlinks and hard links included; nothing escapes the working directory.
import assert from 'node:assert/strict';
import { link, lstat, mkdir, mkdtemp, readFile, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { startHarness, type Harness } from './harness.js';

const ORIGINAL = '{"name":"original"}';

async function workspace(): Promise<{ dir: string; outside: string }> {
  const dir = await mkdtemp(join(tmpdir(), 'roost-prot-'));
  const outside = await mkdtemp(join(tmpdir(), 'roost-outside-'));
  await writeFile(join(dir, 'package.json'), ORIGINAL);
  await writeFile(join(dir, 'schema.ts'), 'export const schema = 1;');
  await writeFile(join(dir, 'other.txt'), 'other');
  await writeFile(join(outside, 'secret.txt'), 'secret');
  await mkdir(join(dir, 'sub'));
  await symlink(join(dir, 'package.json'), join(dir, 'pkg-link.json'));
  await symlink(join(dir, 'other.txt'), join(dir, 'sub', '.env'));
  await symlink(outside, join(dir, 'out'));
  await symlink(join(outside, 'secret.txt'), join(dir, 'escape.txt'));
  await symlink(join(dir, 'missing.txt'), join(dir, 'dangling.txt'));
  await link(join(dir, 'package.json'), join(dir, 'hard.txt'));
  return { dir, outside };
}

describe('protected files and confinement', () => {
  let h: Harness;
  before(async () => {
    h = await startHarness();
  });
  after(() => h.close());

  it('refuses every write to a protected file or outside the working directory, and allows the rest', async () => {
    const { dir, outside } = await workspace();
    const attempts = [
      { name: 'write_file', input: { path: 'package.json', content: 'x' } },
      { name: 'write_file', input: { path: 'sub/Package.JSON', content: 'x' } },
      { name: 'edit_file', input: { path: 'schema.ts', old_string: '1', new_string: '2' } },
      { name: 'write_file', input: { path: '.env', content: 'TOKEN=x' } },
      { name: 'write_file', input: { path: 'pkg-link.json', content: 'x' } },
      { name: 'write_file', input: { path: 'sub/.env', content: 'x' } },
      { name: 'write_file', input: { path: 'out/new.txt', content: 'x' } },
      { name: 'write_file', input: { path: 'escape.txt', content: 'x' } },
      { name: 'write_file', input: { path: 'dangling.txt', content: 'x' } },
      { name: 'write_file', input: { path: 'hard.txt', content: 'x' } },
      { name: 'write_file', input: { path: '../evil.txt', content: 'x' } },
      { name: 'write_file', input: { path: join(outside, 'abs.txt'), content: 'x' } },
      { name: 'write_file', input: { path: 'fine/new.txt', content: 'allowed' } },
    ];
    h.anthropic.setScript([{ toolUses: attempts }, 'Done.']);
    const project = await h.server.api('POST', '/api/projects', { body: { name: `prot-${Date.now()}`, workingDir: dir } });
    const agent = await h.agent({ permissionMode: 'full-auto' });
    const session = await h.session({ agentId: agent.id, projectId: project.body.id, initialPrompt: 'break things' });
    await h.until(session.id, (s) => s.turns === 2 && !s.busy);
    const results = (await h.messages(session.id)).filter((m: any) => m.role === 'tool');
    assert.equal(results.length, attempts.length);
    const expected = [/protected file/, /protected file/, /protected file/, /protected file/, /protected file/, /protected file/, /outside the working directory/,
      /outside the working directory/, /symlink to nothing/, /other hard links/, /outside the working directory/, /outside the working directory/, /wrote 7 bytes/];
    results.forEach((r: any, i: number) => {
      assert.match(r.content, expected[i]!, `${JSON.stringify(attempts[i])}: ${r.content}`);
      assert.equal(r.isError, i !== attempts.length - 1);
    });
    assert.equal(await readFile(join(dir, 'package.json'), 'utf8'), ORIGINAL);
    assert.equal(await readFile(join(dir, 'schema.ts'), 'utf8'), 'export const schema = 1;');
    assert.equal(await readFile(join(dir, 'other.txt'), 'utf8'), 'other');
    assert.equal(await readFile(join(outside, 'secret.txt'), 'utf8'), 'secret');
    await assert.rejects(lstat(join(dir, '.env')));
    await assert.rejects(lstat(join(outside, 'new.txt')));
    await assert.rejects(lstat(join(outside, 'abs.txt')));
    assert.equal(await readFile(join(dir, 'fine/new.txt'), 'utf8'), 'allowed');
  });

  it('refuses a protected or outside write before asking anyone, and asks only for the rest', async () => {
    const { dir, outside } = await workspace();
    const attempts = [
      { name: 'write_file', input: { path: 'package.json', content: 'x' } },
      { name: 'write_file', input: { path: join(outside, 'abs.txt'), content: 'x' } },
      { name: 'write_file', input: { path: 'asked.txt', content: 'asked' } },
    ];
    h.anthropic.setScript([{ toolUses: attempts }, 'Done.']);
    const project = await h.server.api('POST', '/api/projects', { body: { name: `ask-${Date.now()}`, workingDir: dir } });
    const agent = await h.agent({ permissionMode: 'default' });
    const session = await h.session({ agentId: agent.id, projectId: project.body.id });
    const ws = await h.subscribe(session.id);
    ws.send({ type: 'send_message', sessionId: session.id, content: 'write three files' });
    const ask = await ws.next((m) => m.type === 'approval_request', 10_000);
    assert.deepEqual(ask.request.input, { path: 'asked.txt', content: 'asked' }, 'the first question is about the only write an approval can allow');
    ws.send({ type: 'approval_response', requestId: ask.request.id, behavior: 'allow' });
    await h.until(session.id, (s) => s.turns === 2 && !s.busy);
    assert.equal(ws.messages.filter((m) => m.type === 'approval_request').length, 0, 'nothing else was asked');
    const results = (await h.messages(session.id)).filter((m: any) => m.role === 'tool');
    assert.match(results[0].content, /protected file/);
    assert.match(results[1].content, /outside the working directory/);
    assert.equal(await readFile(join(dir, 'asked.txt'), 'utf8'), 'asked');
    assert.equal(await readFile(join(dir, 'package.json'), 'utf8'), ORIGINAL);
  });

  it('puts protected files back after a shell command changes them', async () => {
    const { dir, outside } = await workspace();
    const command = `echo hacked > package.json; echo TOKEN=x > .env; rm schema.ts; ln -s ${join(outside, 'secret.txt')} schema.ts; echo ok > other.txt`;
    h.anthropic.setScript([{ toolUses: [{ name: 'run_command', input: { command } }] }, 'Done.']);
    const project = await h.server.api('POST', '/api/projects', { body: { name: `shell-${Date.now()}`, workingDir: dir } });
    const agent = await h.agent({ permissionMode: 'full-auto' });
    const session = await h.session({ agentId: agent.id, projectId: project.body.id, initialPrompt: 'run it' });
    await h.until(session.id, (s) => s.turns === 2 && !s.busy);
    const result = (await h.messages(session.id)).find((m: any) => m.role === 'tool');
    assert.equal(result.isError, true);
    assert.match(result.content, /protected files were changed and have been restored: /);
    for (const name of ['package.json', 'schema.ts', '.env']) assert.ok(result.content.includes(name), `reports ${name}`);
    assert.equal(await readFile(join(dir, 'package.json'), 'utf8'), ORIGINAL);
    assert.ok((await lstat(join(dir, 'schema.ts'))).isFile(), 'schema.ts is a plain file again, not the planted link');
    assert.equal(await readFile(join(dir, 'schema.ts'), 'utf8'), 'export const schema = 1;');
    await assert.rejects(lstat(join(dir, '.env')));
    assert.equal(await readFile(join(outside, 'secret.txt'), 'utf8'), 'secret');
    assert.equal(await readFile(join(dir, 'other.txt'), 'utf8'), 'ok\n', 'other files keep what the command did');
  });
});
