// `roost review` run as a person would, in temporary git repositories, against the fake Anthropic and
// Ollama servers: single models, panels where members fail independently, --file, empty diffs, a
// missing key, timeouts and bad flags.
import assert from 'node:assert/strict';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { after, before, beforeEach, describe, it } from 'node:test';
import { git, roost, tempDir, tempGitRepo, writeTree } from '../helpers/cli.js';
import { FAKE_ANTHROPIC_KEY, startFakeAnthropic, type FakeAnthropic } from '../fakes/anthropic.js';
import { startFakeOllama, type FakeOllama } from '../fakes/ollama.js';
import { assertSchema } from './json-schema.js';

const FINDINGS = JSON.stringify({
  findings: [
    { file: 'src/math.ts', line: 2, severity: 'error', message: 'Division by zero is not handled.' },
    { file: 'src/math.ts', line: null, severity: 'nit', message: 'Consider a doc comment.' },
  ],
});

describe('roost review', () => {
  let anthropic: FakeAnthropic;
  let ollama: FakeOllama;
  let repo: Awaited<ReturnType<typeof tempGitRepo>>;
  let env: Record<string, string | undefined>;

  before(async () => {
    anthropic = await startFakeAnthropic();
    ollama = await startFakeOllama({ models: ['llama3.2', 'qwen2.5-coder:7b'] });
    repo = await tempGitRepo({ 'src/math.ts': 'export const add = (a: number, b: number) => a + b;\n', 'README.md': '# math\n' });
    env = {
      ANTHROPIC_API_KEY: FAKE_ANTHROPIC_KEY,
      ANTHROPIC_BASE_URL: anthropic.url,
      OLLAMA_HOST: ollama.url,
      ROOST_AI_PROVIDER: undefined,
      ROOST_AI_MODEL: undefined,
      ROOST_HOME: join(repo.root, 'home'),
    };
    // A working change: one tracked file edited, one staged, one untracked, one untracked binary.
    await writeTree(repo.work, {
      'src/math.ts': 'export const add = (a: number, b: number) => a + b;\nexport const div = (a: number, b: number) => a / b;\n',
      'src/staged.py': 'def staged():\n    return 1\n',
      'src/fresh.go': 'package math\n\nfunc Fresh() int { return 2 }\n',
    });
    await git(repo.work, 'add', 'src/staged.py');
    await writeFile(join(repo.work, 'logo.bin'), Buffer.from([0x89, 0x50, 0x00, 0x01, 0x02]));
  });
  after(async () => {
    await anthropic.close();
    await ollama.close();
    await repo.cleanup();
  });
  beforeEach(() => {
    anthropic.setScript([FINDINGS]);
    ollama.setScript([FINDINGS]);
  });

  const review = (args: string[], extraEnv: Record<string, string | undefined> = {}, cwd = repo.work) =>
    roost(['review', ...args], { cwd, env: { ...env, ...extraEnv } });

  it('reviews the working diff with the active Anthropic model', async () => {
    const run = await review(['--json']);
    assert.equal(run.code, 0, run.stderr);
    const doc = assertSchema('review', run.json);
    assert.equal(doc.ok, true);
    assert.equal(doc.target.kind, 'diff');
    assert.deepEqual(doc.target.files, ['src/fresh.go', 'src/math.ts', 'src/staged.py']);
    assert.deepEqual(doc.target.skipped, [{ path: 'logo.bin', reason: 'binary' }]);
    assert.equal(doc.members.length, 1);
    const [member] = doc.members;
    assert.equal(member.provider, 'anthropic');
    assert.equal(member.model, 'claude-sonnet-5-5');
    assert.equal(member.ok, true);
    assert.equal(member.format, 'findings');
    assert.deepEqual(member.findings, [
      { file: 'src/math.ts', line: 2, severity: 'error', message: 'Division by zero is not handled.' },
      { file: 'src/math.ts', line: null, severity: 'info', message: 'Consider a doc comment.' },
    ]);
    assert.ok(member.usage.inputTokens > 0 && member.usage.outputTokens > 0);

    const sent = anthropic.requests.at(-1)!.body;
    const prompt: string = sent.messages[0].content;
    assert.match(sent.system, /JSON only/);
    assert.match(prompt, /\+export const div/, 'the unstaged edit is in the diff');
    assert.match(prompt, /\+def staged\(\):/, 'the staged file is in the diff');
    assert.match(prompt, /\+\+\+ b\/src\/fresh\.go\n@@ -0,0 \+1,3 @@\n\+package math/, 'the untracked file is in the diff');
    assert.ok(!prompt.includes('logo.bin'));
  });

  it('prints a readable report without --json', async () => {
    const run = await review([]);
    assert.equal(run.code, 0, run.stderr + run.stdout);
    assert.match(run.stdout, /Reviewed 3 changed file\(s\) against HEAD with 1 model\(s\)\./);
    assert.match(run.stdout, /anthropic:claude-sonnet-5-5: 2 finding\(s\)/);
    assert.match(run.stdout, /error\s+src\/math\.ts:2\s+Division by zero is not handled\./);
    assert.match(run.stdout, /skipped logo\.bin: binary/);
  });

  it('reviews with the active Ollama model', async () => {
    const before = ollama.requests.length;
    ollama.setScript([{ text: FINDINGS, promptEvalCount: 321, evalCount: 45 }]);
    const run = await review(['--json'], { ROOST_AI_PROVIDER: 'ollama' });
    assert.equal(run.code, 0, run.stderr);
    const [member] = assertSchema('review', run.json).members;
    assert.equal(member.provider, 'ollama');
    assert.equal(member.model, 'llama3.2');
    assert.deepEqual(member.usage, { inputTokens: 321, outputTokens: 45 });
    assert.equal(member.findings.length, 2);
    assert.equal(ollama.requests.length, before + 1);
  });

  it('keeps a failing panel member from failing the others (Anthropic 5xx, Ollama fine)', async () => {
    anthropic.setScript([{ error: { status: 500, message: 'internal meltdown' } }]);
    const run = await review(['--json', '--with-model', 'ollama:qwen2.5-coder:7b']);
    assert.equal(run.code, 0, run.stdout);
    const doc = assertSchema('review', run.json);
    assert.equal(doc.ok, true);
    const [claude, qwen] = doc.members;
    assert.equal(claude.ok, false);
    assert.equal(claude.error.code, 'UPSTREAM_ERROR');
    assert.match(claude.error.message, /500.*internal meltdown/);
    assert.equal(qwen.provider, 'ollama');
    assert.equal(qwen.model, 'qwen2.5-coder:7b');
    assert.equal(qwen.ok, true);
    assert.equal(qwen.findings.length, 2);
  });

  it('keeps a failing panel member from failing the others (Ollama 5xx, Anthropic fine)', async () => {
    ollama.setScript([{ error: { status: 500, message: 'llama runner process has terminated' } }]);
    const run = await review(['--with-model', 'ollama:llama3.2']);
    assert.equal(run.code, 0, run.stderr + run.stdout);
    assert.match(run.stdout, /anthropic:claude-sonnet-5-5: 2 finding\(s\)/);
    assert.match(run.stdout, /✗ ollama:llama3\.2 failed after .*llama runner process has terminated/);
  });

  it('exits 1 when every member fails, still reporting each error', async () => {
    anthropic.setScript([{ error: { status: 529 } }]);
    const run = await review(['--json', '--with-model', 'ollama:not-installed'], {});
    assert.equal(run.code, 1, run.stderr + run.stdout);
    const doc = assertSchema('review', run.json);
    assert.equal(doc.ok, false);
    assert.deepEqual(doc.members.map((m: { ok: boolean }) => m.ok), [false, false]);
    assert.match(doc.members[1].error.message, /not found.*ollama pull not-installed/);
  });

  it('resolves a bare --with-model name with the active provider and runs members in parallel', async () => {
    // A barrier: no member is answered until both have asked, so members run one after the other would hang.
    let arrived = 0;
    let release!: () => void;
    const bothAsked = new Promise<void>((resolve) => (release = resolve));
    anthropic.setScript(async () => {
      if (++arrived === 2) release();
      await bothAsked;
      return FINDINGS;
    });
    const before = anthropic.requests.length;
    const run = await review(['--json', '--timeout', '30', '--with-model', 'claude-opus-5-5', '--with-model', 'claude-sonnet-5-5']);
    const doc = assertSchema('review', run.json);
    assert.deepEqual(doc.members.map((m: { provider: string; model: string }) => `${m.provider}:${m.model}`), ['anthropic:claude-sonnet-5-5', 'anthropic:claude-opus-5-5']);
    assert.deepEqual(doc.members.map((m: { ok: boolean }) => m.ok), [true, true]);
    const models = anthropic.requests.slice(before).map((r) => r.body.model).sort();
    assert.deepEqual(models, ['claude-opus-5-5', 'claude-sonnet-5-5']);
  });

  it('keeps an answer without a findings list as text', async () => {
    anthropic.setScript(['Looks fine to me, but `div` should guard against zero.']);
    const doc = assertSchema('review', (await review(['--json'])).json);
    assert.equal(doc.members[0].format, 'text');
    assert.deepEqual(doc.members[0].findings, []);
    assert.match(doc.members[0].text, /guard against zero/);
  });

  it('reads findings wrapped in prose and a code fence', async () => {
    anthropic.setScript([`Here you go:\n\`\`\`json\n[{"path":"src/math.ts","line":"2","severity":"HIGH","description":"zero"}]\n\`\`\`\nBye.`]);
    const doc = assertSchema('review', (await review(['--json'])).json);
    assert.deepEqual(doc.members[0].findings, [{ file: 'src/math.ts', line: 2, severity: 'error', message: 'zero' }]);
  });

  it('gives up on a hanging member at --timeout and keeps the others', async () => {
    ollama.setScript([{ hang: true }]);
    // Long enough for the answering member to load its SDK and answer on a saturated machine: the clock
    // runs from the call, and only the hanging member should meet it.
    const run = await review(['--json', '--timeout', '6', '--with-model', 'ollama:llama3.2']);
    assert.equal(run.code, 0, run.stderr + run.stdout);
    const [claude, llama] = assertSchema('review', run.json).members;
    assert.equal(claude.ok, true);
    assert.equal(llama.ok, false);
    assert.equal(llama.error.code, 'TIMEOUT');
  });

  it('reviews one file with --file, lines numbered', async () => {
    const run = await review(['--json', '--file', 'math.ts'], {}, join(repo.work, 'src'));
    assert.equal(run.code, 0, run.stderr);
    const doc = assertSchema('review', run.json);
    assert.deepEqual({ kind: doc.target.kind, path: doc.target.path, files: doc.target.files }, { kind: 'file', path: 'src/math.ts', files: ['src/math.ts'] });
    const prompt: string = anthropic.requests.at(-1)!.body.messages[0].content;
    assert.match(prompt, /Review the file src\/math\.ts/);
    assert.match(prompt, / {4}2\| export const div/);
  });

  it('refuses a missing, binary or directory --file clearly', async () => {
    const missing = await review(['--json', '--file', 'nope.ts']);
    assert.equal(missing.code, 1, missing.stderr + missing.stdout);
    assert.equal(assertSchema('error', missing.json).error.code, 'NOT_FOUND');
    const binary = await review(['--json', '--file', 'logo.bin']);
    assert.equal(binary.code, 1, binary.stderr + binary.stdout);
    assert.match(assertSchema('error', binary.json).error.message, /binary/);
    const dir = await review(['--json', '--file', 'src']);
    assert.equal(dir.code, 2, dir.stderr + dir.stdout);
    assert.match(assertSchema('error', dir.json).error.message, /not a regular file/);
  });

  it('says there is nothing to review on a clean tree, exit 0, without calling a model', async () => {
    const clean = await tempGitRepo({ 'a.txt': 'a\n' });
    try {
      const before = anthropic.requests.length;
      const run = await review(['--json'], {}, clean.work);
      assert.equal(run.code, 0, run.stderr + run.stdout);
      const doc = assertSchema('review', run.json);
      assert.deepEqual(doc.members, []);
      assert.deepEqual(doc.target.files, []);
      const human = await review([], {}, clean.work);
      assert.match(human.stdout, /Nothing to review: no changes against HEAD/);
      assert.equal(anthropic.requests.length, before);
    } finally {
      await clean.cleanup();
    }
  });

  it('cuts a huge diff to its size limit and stops reading untracked files past it', async () => {
    const big = await tempGitRepo({ 'a.txt': 'a\n' });
    try {
      const line = `${'y'.repeat(99)}\n`;
      const files: Record<string, string> = {};
      for (let i = 0; i < 5; i++) files[`gen/f${i}.txt`] = line.repeat(600);
      await writeTree(big.work, files);
      const run = await review(['--json'], {}, big.work);
      assert.equal(run.code, 0, run.stderr);
      const doc = assertSchema('review', run.json);
      assert.equal(doc.target.truncated, true);
      assert.equal(doc.target.chars, 200_000);
      assert.deepEqual(doc.target.files, ['gen/f0.txt', 'gen/f1.txt', 'gen/f2.txt', 'gen/f3.txt']);
      assert.deepEqual(doc.target.skipped, [{ path: 'gen/f4.txt', reason: 'the diff is already at its size limit' }]);
      assert.match(anthropic.requests.at(-1)!.body.messages[0].content, /The input was cut to fit/);
    } finally {
      await big.cleanup();
    }
  });

  it('fails clearly, naming ANTHROPIC_API_KEY, when the key is missing', async () => {
    const run = await review(['--json'], { ANTHROPIC_API_KEY: undefined, OLLAMA_HOST: undefined });
    assert.equal(run.code, 1, run.stderr + run.stdout);
    const doc = assertSchema('review', run.json);
    assert.equal(doc.members[0].error.code, 'PROVIDER_NOT_CONFIGURED');
    assert.match(doc.members[0].error.message, /ANTHROPIC_API_KEY is not set/);
    const human = await review([], { ANTHROPIC_API_KEY: undefined, ROOST_AI_PROVIDER: 'anthropic' });
    assert.equal(human.code, 1, human.stderr + human.stdout);
    assert.match(human.stdout, /ANTHROPIC_API_KEY is not set/);
  });

  it('uses the local Ollama by default when there is no key but OLLAMA_HOST is set', async () => {
    const run = await review(['--json'], { ANTHROPIC_API_KEY: undefined });
    assert.equal(run.code, 0, run.stderr + run.stdout);
    const [member] = assertSchema('review', run.json).members;
    assert.deepEqual([member.provider, member.model, member.ok], ['ollama', 'llama3.2', true]);
  });

  it('rejects bad flags with exit 2 and the error envelope', async () => {
    const cases: string[][] = [
      ['--timeout', 'soon'],
      ['--timeout', '-5'],
      ['--max-tokens', '1.5'],
      ['--with-model', 'ollama:'],
      ['--provider', 'openai'],
      ['--bogus'],
      ['--file'],
    ];
    for (const args of cases) {
      const run = await review(['--json', ...args]);
      assert.equal(run.code, 2, `${args.join(' ')}: ${run.stdout}`);
      assert.equal(assertSchema('error', run.json).error.code, 'USAGE');
    }
  });

  it('asks for --file outside a git repository', async () => {
    const { dir, cleanup } = await tempDir();
    try {
      const run = await review(['--json'], {}, dir);
      assert.equal(run.code, 2, run.stderr + run.stdout);
      assert.match(assertSchema('error', run.json).error.message, /not inside a git repository: pass --file/);
    } finally {
      await cleanup();
    }
  });
});
