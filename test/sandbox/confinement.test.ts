// A sandboxed session of a full-auto agent, driven by the fake Anthropic server through the real
// sessions runner: its shell tool tries to write outside its folder, open a socket, fork-bomb, exhaust
// memory, spin the CPU and outlast its wall time — each stopped by the sandbox and reported in the
// tool result. Every bomb here is bounded twice: by the policy (tiny limits) and by itself (a finite
// depth, sleeps that end), so a failure of the sandbox could not hurt the shared machine either.
import assert from 'node:assert/strict';
import { mkdir, mkdtemp, readdir, readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { startHarness, type Harness } from '../sessions/harness.js';

const TIGHT = { network: false, writablePaths: ['out'], cpuSeconds: 1, memoryMb: 96, maxProcesses: 16, wallTimeSeconds: 8 };
/** A binary tree of shells of depth 7: at most 255 processes, each gone within 8 s. */
const BOUNDED_FORK_BOMB = 'bomb() { if [ "$1" -gt 0 ]; then bomb $(($1-1)) & bomb $(($1-1)) & wait; else sleep 8; fi; }; bomb 7';
const MEMORY_HOG = `python3 -c "b = bytearray(512 * 1024 * 1024); print('allocated', len(b))"`;

describe('a sandboxed session', () => {
  let h: Harness;
  let root: string;
  let work: string;
  let sibling: string;

  before(async () => {
    h = await startHarness();
    root = await mkdtemp(join(tmpdir(), 'roost-sbx-'));
    work = join(root, 'work');
    sibling = join(root, 'sibling');
    await mkdir(join(work, 'out'), { recursive: true });
    await mkdir(sibling);
    await writeFile(join(work, 'readme.txt'), 'original');
  });
  after(() => h.close());

  /** A full-auto agent with `policy`, a session on the project with a sandbox, then one turn of `toolUses`. */
  async function sandboxedTurn(policy: Record<string, unknown>, toolUses: Array<{ name: string; input: Record<string, unknown> }>): Promise<any[]> {
    const project = await h.server.api('POST', '/api/projects', { body: { name: `sbx-${Date.now()}-${Math.random()}`, workingDir: work } });
    const agent = await h.agent({ permissionMode: 'full-auto' });
    assert.equal((await h.server.api('PUT', `/api/sandbox/policies/${agent.id}`, { body: policy })).status, 200);
    const session = await h.session({ agentId: agent.id, projectId: project.body.id });
    const assigned = await h.server.api('POST', '/api/sandbox/assign', { body: { sessionId: session.id } });
    assert.equal(assigned.status, 201, assigned.text);
    h.anthropic.setScript([{ toolUses }, 'Done.']);
    await h.server.api('POST', `/api/sessions/${session.id}/messages`, { body: { content: 'go' } });
    await h.until(session.id, (s) => s.turns === 2 && !s.busy, 90_000);
    const results = (await h.messages(session.id)).filter((m: any) => m.role === 'tool');
    assert.equal(results.length, toolUses.length);
    results.forEach((r: any, i: number) => {
      if (toolUses[i]!.name === 'run_command' || r.isError) assert.match(r.content, /sandbox sbx_[0-9a-f-]+: network (on|off)/, 'the result says which sandbox ran it');
    });
    return results;
  }

  it('keeps writes inside the writable folders, for the shell and for the file tools', async () => {
    const results = await sandboxedTurn(TIGHT, [
      { name: 'run_command', input: { command: 'echo inside > out/made.txt && cat out/made.txt' } },
      { name: 'run_command', input: { command: 'echo changed > readme.txt' } },
      { name: 'run_command', input: { command: `mkdir -p ${sibling} && echo escaped > ${join(sibling, 'escape.txt')}; echo escaped > /etc/roost-escape` } },
      { name: 'write_file', input: { path: 'readme.txt', content: 'overwritten' } },
      { name: 'write_file', input: { path: 'out/tool.txt', content: 'by the file tool' } },
      { name: 'read_file', input: { path: 'readme.txt' } },
    ]);
    assert.equal(results[0].isError, false, results[0].content);
    assert.match(results[0].content, /inside/);
    assert.equal(results[1].isError, true);
    assert.match(results[1].content, /Read-only file system/);
    assert.equal(results[2].isError, true);
    assert.match(results[2].content, /Read-only file system/);
    assert.equal(results[3].isError, true, 'the file tool ran inside the sandbox, where readme.txt is read-only');
    assert.match(results[3].content, /read-only file system/i);
    assert.equal(results[4].isError, false, results[4].content);
    assert.equal(results[5].content, 'original');
    assert.equal(await readFile(join(work, 'readme.txt'), 'utf8'), 'original');
    assert.equal(await readFile(join(work, 'out', 'made.txt'), 'utf8'), 'inside\n');
    assert.equal(await readFile(join(work, 'out', 'tool.txt'), 'utf8'), 'by the file tool');
    assert.deepEqual(await readdir(sibling), [], 'nothing was written beside the working directory');
  });

  it('gives no network when the policy says no, and the network when it says yes', async () => {
    const port = new URL(h.anthropic.url).port;
    const connect = `curl -sS -m 5 -o /dev/null -w 'status %{http_code}' http://127.0.0.1:${port}/ || echo 'socket refused'`;
    const [off] = await sandboxedTurn({ ...TIGHT, memoryMb: 256 }, [{ name: 'run_command', input: { command: connect } }]);
    assert.match(off.content, /socket refused/);
    assert.match(off.content, /network off/);
    const [on] = await sandboxedTurn({ ...TIGHT, memoryMb: 256, network: true }, [{ name: 'run_command', input: { command: connect } }]);
    assert.match(on.content, /status \d{3}/, on.content);
    assert.match(on.content, /network on/);
  });

  it('stops a fork bomb, a memory hog, a CPU spinner and a sleeper at the policy limits', async () => {
    const results = await sandboxedTurn(TIGHT, [
      { name: 'run_command', input: { command: BOUNDED_FORK_BOMB } },
      { name: 'run_command', input: { command: MEMORY_HOG } },
      { name: 'run_command', input: { command: 'while :; do :; done' } },
      { name: 'run_command', input: { command: 'sleep 30' } },
    ]);
    const [bomb, memory, cpu, sleeper] = results;
    assert.equal(bomb.isError, true);
    assert.match(bomb.content, /stopped by the sandbox: (more than 16 processes|the sandbox's process limit \(16\))/, bomb.content);
    assert.equal(memory.isError, true);
    assert.match(memory.content, /memory/, memory.content);
    assert.doesNotMatch(memory.content, /allocated/);
    assert.equal(cpu.isError, true);
    assert.match(cpu.content, /stopped by the sandbox: CPU time limit of 1 s/, cpu.content);
    assert.equal(sleeper.isError, true);
    assert.match(sleeper.content, /stopped by the sandbox: wall time of 8 s reached/, sleeper.content);
  });
});
