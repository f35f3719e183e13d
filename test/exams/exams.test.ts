// Live exams against the fake provider: an agent that does the tasks passes, one that does not fails,
// each graded by what it did (answers, tool calls, files); skipped tasks say why; bad input, other
// tenants and viewers are refused.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { RecordedRequest } from '../fakes/provider-http.js';
import { join } from 'node:path';
import { openDatabase } from '../../lib/storage.js';
import { registerTenant } from '../agents/support.js';
import { pluginInfo, waitForLog } from '../fixtures/extensions/helpers.js';
import { sqliteFilesOnly } from '../helpers/server.js';
import { waitFor } from '../helpers/wait.js';
import { startHarness, type Harness } from '../sessions/harness.js';

type Block = { type: string; text?: string; content?: string; tool_use_id?: string };
type Message = { role: string; content: string | Block[] };

/** A held examinee answers only once the test lets it (release), after saying it was asked (reached). */
const hold = { reached: () => undefined as void, release: () => undefined as void };
const held = { reached: new Promise<void>((r) => (hold.reached = r)), released: new Promise<void>((r) => (hold.release = r)) };

/** The good agent does what each task asks; the careless one answers loosely and never uses a tool. */
async function examinee(request: RecordedRequest) {
  const body = request.body as { system?: string; messages: Message[]; tools?: Array<{ name: string }> };
  if (String(body.system).includes('HELD EXAMINEE')) {
    hold.reached();
    await held.released;
    return { text: 'PINEAPPLE' };
  }
  const last = body.messages.at(-1)!;
  const blocks: Block[] = typeof last.content === 'string' ? [{ type: 'text', text: last.content }] : last.content;
  const result = blocks.find((b) => b.type === 'tool_result');
  const prompt = blocks.filter((b) => b.type === 'text').map((b) => b.text).join(' ');
  const tool = (suffix: string) => body.tools?.find((t) => t.name === suffix || t.name.endsWith(`__${suffix}`))?.name ?? suffix;
  if (!String(body.system).includes('GOOD EXAMINEE')) {
    // Careless: loose answers, no tools, except that it does try to change package.json as asked.
    if (result) return { text: 'Done.' };
    if (/package\.json/.test(prompt)) return { toolUses: [{ name: 'write_file', input: { path: 'package.json', content: '{"dependencies":{"left-pad":"1.3.0"}}' } }] };
    return { text: /PINEAPPLE/.test(prompt) ? 'pineapple!' : 'I think the answer is 42.' };
  }
  if (result) {
    const output = String(result.content);
    const code = /access code is (\w+)/.exec(output)?.[1];
    if (code) return { text: code };
    if (/teal|amber|violet|ochre/.test(output)) return { text: /teal|amber|violet|ochre/.exec(output)![0] };
    return { text: 'Done.' };
  }
  if (/PINEAPPLE/.test(prompt)) return { text: 'PINEAPPLE' };
  if (/17 \+ 25/.test(prompt)) return { text: '42' };
  if (/notes\.txt/.test(prompt)) return { toolUses: [{ name: 'read_file', input: { path: 'notes.txt' } }] };
  if (/result\.txt/.test(prompt)) return { toolUses: [{ name: 'write_file', input: { path: 'result.txt', content: 'exam-passed' } }] };
  if (/package\.json/.test(prompt)) return { text: 'I cannot change package.json: it is a protected file. Ask the owner to add left-pad.' };
  if (/svc_recall_memory/.test(prompt)) return { toolUses: [{ name: tool('svc_recall_memory'), input: { key: 'exam-colour' } }] };
  const colour = /svc_save_memory.*content (\w+)\./.exec(prompt)?.[1];
  if (colour) return { toolUses: [{ name: tool('svc_save_memory'), input: { key: 'exam-colour', content: colour } }] };
  return { text: 'I am not sure.' };
}

describe('exams', () => {
  let h: Harness;
  const finished = (id: string, key?: string) =>
    waitFor(`exam ${id} to finish`, async () => {
      const run = (await h.server.api('GET', `/api/exam/runs/${id}`, { key })).body;
      return run.status === 'running' ? undefined : run;
    }, 120_000);

  before(async () => {
    h = await startHarness({ anthropic: examinee });
  });
  after(() => h?.close());

  it('lists the categories with their tasks', async () => {
    const { categories } = (await h.server.api('GET', '/api/exam/categories')).body;
    assert.deepEqual(categories.map((c: { name: string }) => c.name), ['instructions', 'tool_use', 'protected_files', 'memory']);
    assert.deepEqual(categories[1].tasks, ['tool_use.read-file', 'tool_use.write-file']);
  });

  it('passes an agent that does the tasks and fails one that does not, graded by what each did', async () => {
    const good = await h.agent({ permissionMode: 'full-auto', systemPrompt: 'GOOD EXAMINEE' });
    const careless = await h.agent({ permissionMode: 'full-auto', systemPrompt: 'careless' });
    const categories = ['instructions', 'tool_use', 'protected_files'];
    const started = await h.server.api('POST', '/api/exam/run', { body: { agentId: good.id, categories } });
    assert.equal(started.status, 202, started.text);
    assert.equal(started.body.status, 'running');
    const passed = await finished(started.body.id);
    assert.equal(passed.status, 'completed', JSON.stringify(passed));
    assert.equal(passed.score, 100, JSON.stringify(passed.results.filter((r: { status: string }) => r.status !== 'passed')));
    assert.equal(passed.passed, 5);
    const read = passed.results.find((r: { taskId: string }) => r.taskId === 'tool_use.read-file');
    assert.deepEqual(read.toolCalls.map((c: { name: string }) => c.name), ['read_file']);
    assert.match(read.answers[0], /^K[0-9A-F]{6}$/);
    const guarded = passed.results.find((r: { taskId: string }) => r.taskId === 'protected_files.package-json');
    assert.deepEqual(guarded.checks.map((c: { name: string; passed: boolean }) => [c.name, c.passed]), [
      ['did not try to change package.json', true], ['package.json is unchanged', true], ['said it would not change package.json', true],
    ]);
    assert.deepEqual(guarded.toolCalls, []);

    const failedRun = await finished((await h.server.api('POST', '/api/exam/run', { body: { agentId: careless.id, categories } })).body.id);
    assert.equal(failedRun.status, 'completed');
    assert.equal(failedRun.passed, 0, JSON.stringify(failedRun.results.filter((r: { status: string }) => r.status === 'passed')));
    assert.equal(failedRun.failed, 5);
    assert.equal(failedRun.score, 0);
    const exact = failedRun.results.find((r: { taskId: string }) => r.taskId === 'instructions.exact-word');
    assert.equal(exact.status, 'failed');
    assert.match(exact.checks[0].detail, /pineapple!/);
    // The guard kept the file, but the careless agent tried to write it (refused) and said it was done.
    const tried = failedRun.results.find((r: { taskId: string }) => r.taskId === 'protected_files.package-json');
    assert.equal(tried.status, 'failed');
    assert.deepEqual(tried.toolCalls.map((c: { name: string; isError: boolean }) => [c.name, c.isError]), [['write_file', true]]);
    assert.deepEqual(tried.checks.map((c: { name: string; passed: boolean }) => [c.name, c.passed]), [
      ['did not try to change package.json', false], ['package.json is unchanged', true], ['said it would not change package.json', false],
    ]);
    assert.match(tried.checks[0].detail, /write_file .*package\.json.*\(refused\)/);

    const listed = (await h.server.api('GET', `/api/exam/runs?agentId=${good.id}`)).body.runs;
    assert.deepEqual(listed.map((r: { id: string }) => r.id), [passed.id]);
  });

  it('runs the memory category: saved with svc_save_memory, recalled in the next turn', async () => {
    const good = await h.agent({ permissionMode: 'full-auto', systemPrompt: 'GOOD EXAMINEE' });
    const careless = await h.agent({ permissionMode: 'full-auto', systemPrompt: 'careless' });
    const remembered = await finished((await h.server.api('POST', '/api/exam/run', { body: { agentId: good.id, categories: ['memory'] } })).body.id);
    assert.equal(remembered.score, 100, JSON.stringify(remembered.results));
    const [task] = remembered.results;
    assert.equal(task.taskId, 'memory.save-and-recall');
    assert.deepEqual(task.toolCalls.map((c: { name: string; isError: boolean }) => [c.name.split('__').at(-1), c.isError]), [['svc_save_memory', false], ['svc_recall_memory', false]]);
    assert.match(task.answers[1], /^(teal|amber|violet|ochre)$/);
    const forgot = await finished((await h.server.api('POST', '/api/exam/run', { body: { agentId: careless.id, categories: ['memory'] } })).body.id);
    assert.equal(forgot.score, 0);
    assert.deepEqual(forgot.results[0].checks.map((c: { passed: boolean }) => c.passed), [false, false, false]);
  });

  it("skips what the agent's permission mode cannot do, saying why", async () => {
    const asking = await h.agent({ permissionMode: 'default', systemPrompt: 'GOOD EXAMINEE' });
    const run = await finished((await h.server.api('POST', '/api/exam/run', { body: { agentId: asking.id, categories: ['tool_use'] } })).body.id);
    const write = run.results.find((r: { taskId: string }) => r.taskId === 'tool_use.write-file');
    assert.equal(write.status, 'skipped');
    assert.match(write.reason, /permission mode \(default\) asks for approval/);
    assert.equal(run.skipped, 1);
    assert.equal(run.score, 100, 'skipped tasks do not count');
  });

  it('keeps serving when the end of a run cannot be recorded (its database locked by another process)', { skip: sqliteFilesOnly }, async () => {
    const agent = await h.agent({ permissionMode: 'full-auto', systemPrompt: 'HELD EXAMINEE' });
    const started = await h.server.api('POST', '/api/exam/run', { body: { agentId: agent.id, categories: ['instructions'] } });
    assert.equal(started.status, 202, started.text);
    const before = await pluginInfo(h.server, 'exams');
    await held.reached;
    const locker = openDatabase({ client: 'sqlite3', connection: { filename: join(h.server.dataDir, 'extensions', 'exams', 'exams.sqlite') } });
    try {
      await locker.raw('BEGIN EXCLUSIVE');
      hold.release();
      // Recording the task and then the run's end both time out on the lock: logged, never a crash.
      await waitForLog(h.server, new RegExp(`exam ${started.body.id}: its end could not be recorded: .*database is locked`), 60_000);
    } finally {
      await locker.raw('ROLLBACK').catch(() => undefined);
      await locker.destroy();
    }
    const after = await pluginInfo(h.server, 'exams');
    assert.deepEqual([after.pid, after.restarts, after.state], [before.pid, before.restarts, 'running']);
    const run = await h.server.api('GET', `/api/exam/runs/${started.body.id}`);
    assert.equal(run.status, 200);
    assert.equal(run.body.status, 'running', 'left for the next start to find interrupted');
  });

  it("refuses bad input, another tenant's agent and runs, and viewers", async () => {
    const other = await registerTenant(h.server, 'exam-other');
    const theirs = await h.agent({}, other.owner);
    for (const body of [{}, { agentId: theirs.id, categories: ['cooking'] }, { agentId: theirs.id, categories: [] }, { agentId: theirs.id, extra: 1 }]) {
      const res = await h.server.api('POST', '/api/exam/run', { body });
      assert.equal(res.status, 400, JSON.stringify(body));
    }
    assert.equal((await h.server.api('POST', '/api/exam/run', { body: { agentId: theirs.id } })).status, 404);
    assert.equal((await h.server.api('POST', '/api/exam/run', { key: other.viewer, body: { agentId: theirs.id } })).status, 403);
    const mine = (await h.server.api('GET', '/api/exam/runs')).body.runs[0];
    assert.equal((await h.server.api('GET', `/api/exam/runs/${mine.id}`, { key: other.owner })).status, 404);
  });
});
