// The agent runner child on its own (dist/extensions/sessions/runner/main.js), spoken to over cli-v1
// exactly as the sessions extension does, against the fake providers.
import assert from 'node:assert/strict';
import { mkdtemp, readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { PluginChild } from '../../lib/child.js';
import { distDir } from '../../lib/paths.js';
import { startFakeAnthropic, type FakeAnthropic } from '../fakes/anthropic.js';
import { startFakeOllama, type FakeOllama } from '../fakes/ollama.js';
import { gone } from './harness.js';

const RUNNER = join(distDir, 'extensions/sessions/runner/main.js');

interface Runner {
  child: PluginChild;
  events: any[];
  asked: any[];
  turn(input: string | null): Promise<any>;
}

async function startRunner(provider: Record<string, unknown>, options: { dir?: string; allow?: boolean } = {}): Promise<Runner> {
  const dir = options.dir ?? (await mkdtemp(join(tmpdir(), 'roost-runner-')));
  const child = new PluginChild(RUNNER, [], { cwd: tmpdir(), env: { PATH: process.env.PATH } });
  const events: any[] = [];
  const asked: any[] = [];
  child.peer.handle('emit', (m) => void events.push(m.payload));
  child.peer.handle('confirm', (m) => {
    asked.push(m.tool);
    return options.allow === false ? { allowed: false, reason: 'the test says no' } : { allowed: true };
  });
  const ready = new Promise<any>((resolve) => child.peer.handle('ready', resolve));
  child.peer.notify({
    type: 'init', protocol: 'cli-v1', args: [], project: null, plugin: { name: 'session-runner', version: '0', dir }, host: { name: 'test', version: '0' }, capabilities: {},
    config: { sessionId: 's1', provider, systemPrompt: 'Be brief.', summary: null, workingDir: dir, createWorkingDir: false, protectedFiles: ['package.json', 'schema.ts', '.env'], env: { GREETING: 'hi' }, mcp: null, maxTokens: 1024 },
  });
  const info = await ready;
  assert.ok(info.tools.includes('run_command'));
  return { child, events, asked, turn: (input) => child.peer.request({ type: 'turn', input }) };
}

describe('the agent runner child', () => {
  let anthropic: FakeAnthropic;
  let ollama: FakeOllama;
  const runners: Runner[] = [];
  const claude = () => ({ provider: 'anthropic', model: 'claude-sonnet-5-5', apiKey: 'test', baseUrl: anthropic.url });
  const start = async (provider: Record<string, unknown>, options?: { dir?: string; allow?: boolean }) => {
    const r = await startRunner(provider, options);
    runners.push(r);
    return r;
  };
  before(async () => {
    anthropic = await startFakeAnthropic({ apiKey: 'test' });
    ollama = await startFakeOllama();
  });
  after(async () => {
    await Promise.all(runners.map((r) => r.child.stop({ closeGraceMs: 200, termGraceMs: 200 })));
    await anthropic.close();
    await ollama.close();
  });

  it('streams a reply, asks before each tool use, and continues with the results', async () => {
    anthropic.setScript([{ text: 'Checking.', toolUses: [{ name: 'run_command', input: { command: 'echo $GREETING' } }] }, 'It says hi.']);
    const r = await start(claude());
    const first = await r.turn('what does GREETING say?');
    assert.equal(first.done, false);
    assert.equal(first.toolUses, 1);
    assert.ok(first.usage.inputTokens > 0);
    assert.deepEqual(r.asked.map((t) => [t.name, t.kind]), [['run_command', 'shell']]);
    const result = r.events.find((e) => e.type === 'tool_result');
    assert.match(result.output, /exit code 0\nstdout:\nhi/);
    const second = await r.turn(null);
    assert.equal(second.done, true);
    const body = anthropic.requests.at(-1)!.body;
    assert.equal(body.system, 'Be brief.');
    assert.equal(body.messages.at(-1).content[0].type, 'tool_result');
    const types = r.events.map((e) => e.type);
    assert.deepEqual(types.filter((t) => t !== 'text_delta'), ['tool_use', 'assistant_message', 'tool_result', 'assistant_message']);
    assert.equal(r.events.filter((e) => e.type === 'text_delta').map((e) => e.text).join(''), 'Checking.It says hi.');
  });

  it('tells the model when a tool use was denied', async () => {
    anthropic.setScript([{ toolUses: [{ name: 'write_file', input: { path: 'x.txt', content: 'x' } }] }, 'OK, I will not.']);
    const r = await start(claude(), { allow: false });
    await r.turn('write x.txt');
    const result = r.events.find((e) => e.type === 'tool_result');
    assert.equal(result.isError, true);
    assert.match(result.output, /denied: the test says no/);
  });

  it('maps provider failures to codes the session acts on', async () => {
    const cases: Array<[unknown, string]> = [
      [{ error: { status: 500 } }, 'PROVIDER_UNAVAILABLE'],
      [{ error: { status: 529 } }, 'PROVIDER_UNAVAILABLE'],
      [{ error: { status: 429 } }, 'RATE_LIMITED'],
      [{ error: { status: 529, midStream: true } }, 'PROVIDER_UNAVAILABLE'],
      [{ error: { status: 400, message: 'bad request' } }, 'UPSTREAM_ERROR'],
    ];
    const r = await start(claude());
    for (const [reply, code] of cases) {
      anthropic.setScript([reply as never]);
      await assert.rejects(r.turn('hi'), (err: any) => err.code === code, `${JSON.stringify(reply)} → ${code}`);
    }
    const refused = await start({ ...claude(), baseUrl: 'http://127.0.0.1:9' });
    await assert.rejects(refused.turn('hi'), (err: any) => err.code === 'PROVIDER_UNAVAILABLE' && /cannot reach anthropic/.test(err.message));
    const badKey = await start({ ...claude(), apiKey: 'wrong' });
    await assert.rejects(badKey.turn('hi'), (err: any) => err.code === 'UPSTREAM_ERROR' && /401/.test(err.message));
    // The failed turns left the conversation as it was: the next one works.
    anthropic.setScript(['Back.']);
    assert.equal((await r.turn('hi again')).done, true);
  });

  it('maps Ollama failures the same way', async () => {
    const r = await start({ provider: 'ollama', model: 'llama3.2', baseUrl: ollama.url });
    ollama.setScript([{ error: { status: 500, message: 'boom' } }]);
    await assert.rejects(r.turn('hi'), (err: any) => err.code === 'PROVIDER_UNAVAILABLE');
    ollama.setScript([{ text: 'partial', error: { status: 500, message: 'lost the GPU', midStream: true } }]);
    await assert.rejects(r.turn('hi'), (err: any) => err.code === 'PROVIDER_UNAVAILABLE' && /lost the GPU/.test(err.message));
    const missing = await start({ provider: 'ollama', model: 'nope', baseUrl: ollama.url });
    await assert.rejects(missing.turn('hi'), (err: any) => err.code === 'UPSTREAM_ERROR' && /not found/.test(err.message));
    const refused = await start({ provider: 'ollama', model: 'llama3.2', baseUrl: 'http://127.0.0.1:9' });
    await assert.rejects(refused.turn('hi'), (err: any) => err.code === 'PROVIDER_UNAVAILABLE');
  });

  it('kills a command at its timeout, process group included', async () => {
    anthropic.setScript([{ toolUses: [{ name: 'run_command', input: { command: 'sleep 30 & echo $! > bg.pid; sleep 30; echo never', timeout_seconds: 0.5 } }] }]);
    const dir = await mkdtemp(join(tmpdir(), 'roost-runner-'));
    const r = await start(claude(), { dir });
    const started = Date.now();
    await r.turn('sleep');
    assert.ok(Date.now() - started < 5_000);
    const result = r.events.find((e) => e.type === 'tool_result');
    assert.equal(result.isError, true);
    assert.match(result.output, /timed out after 0.5 s/);
    const background = Number(await readFile(join(dir, 'bg.pid'), 'utf8'));
    assert.ok(await gone(background), "the command's background child was killed too");
  });

  it('leaves at once on cancel, abandoning a hanging model call', async () => {
    anthropic.setScript([{ hang: true }]);
    const r = await start(claude());
    const pending = r.turn('hang').catch((err) => err);
    await new Promise((res) => setTimeout(res, 200));
    r.child.peer.notify({ type: 'cancel', reason: 'test' });
    const exit = await r.child.exited;
    assert.equal(exit.code, 0);
    assert.equal((await pending).code, 'EXTENSION_UNAVAILABLE');
  });

  it('confines reads to the working directory', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'roost-runner-'));
    await writeFile(join(dir, 'a.txt'), 'one\ntwo\nthree');
    anthropic.setScript([{
      toolUses: [
        { name: 'read_file', input: { path: 'a.txt', offset: 2, limit: 1 } },
        { name: 'read_file', input: { path: '../../etc/passwd' } },
        { name: 'read_file', input: { path: '/etc/passwd' } },
        { name: 'list_dir', input: {} },
        { name: 'read_file', input: { nope: 1 } },
      ],
    }]);
    const r = await start(claude(), { dir });
    await r.turn('read');
    const results = r.events.filter((e) => e.type === 'tool_result');
    assert.equal(results[0].output, 'two');
    assert.match(results[1].output, /outside the working directory/);
    assert.match(results[2].output, /outside the working directory/);
    assert.equal(results[3].output, 'a.txt');
    assert.match(results[4].output, /input.path is required|input.nope is not allowed/);
    assert.equal(await readFile(join(dir, 'a.txt'), 'utf8'), 'one\ntwo\nthree');
  });
});
