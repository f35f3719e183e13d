// `roost ai status`: every layer (flag, env, project config, home config, default) wins where it should
// and says so; the API key is reported as present, never printed; --check asks the fake providers.
import assert from 'node:assert/strict';
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { roost, tempGitRepo } from '../helpers/cli.js';
import { FAKE_ANTHROPIC_KEY, startFakeAnthropic, type FakeAnthropic } from '../fakes/anthropic.js';
import { startFakeOllama, type FakeOllama } from '../fakes/ollama.js';
import { assertSchema } from './json-schema.js';

/** Every variable that could leak in from the machine running the tests, unset. */
const CLEAN_ENV = {
  ANTHROPIC_API_KEY: undefined,
  ANTHROPIC_BASE_URL: undefined,
  ANTHROPIC_AUTH_TOKEN: undefined,
  OLLAMA_HOST: undefined,
  ROOST_AI_PROVIDER: undefined,
  ROOST_AI_MODEL: undefined,
};

describe('roost ai status', () => {
  let repo: Awaited<ReturnType<typeof tempGitRepo>>;
  let home: string;
  let projectConfig: string;
  let homeConfig: string;

  before(async () => {
    repo = await tempGitRepo();
    home = join(repo.root, 'roost-home');
    await mkdir(join(repo.work, '.roost'), { recursive: true });
    await mkdir(home, { recursive: true });
    projectConfig = join(repo.work, '.roost', 'config.toml');
    homeConfig = join(home, 'config.toml');
  });
  after(() => repo.cleanup());

  async function status(args: string[], env: Record<string, string | undefined> = {}, files: { project?: string; home?: string } = {}) {
    await writeFile(projectConfig, files.project ?? '');
    await writeFile(homeConfig, files.home ?? '');
    return roost(['ai', 'status', '--json', ...args], { cwd: repo.work, env: { ...CLEAN_ENV, ROOST_HOME: home, ...env } });
  }

  it('defaults to Anthropic and reports the missing key by name', async () => {
    const run = await status([]);
    assert.equal(run.code, 0, run.stderr);
    const doc = assertSchema('ai-status', run.json);
    assert.deepEqual(doc.provider, { value: 'anthropic', source: 'default', from: 'built-in default' });
    assert.equal(doc.model.value, 'claude-sonnet-5-5');
    assert.equal(doc.model.source, 'default');
    assert.deepEqual(doc.baseUrl, { value: 'https://api.anthropic.com', source: 'default', from: 'built-in default for anthropic' });
    assert.deepEqual(doc.apiKey, { variable: 'ANTHROPIC_API_KEY', present: false });
    assert.equal(doc.ready, false);
    assert.match(doc.problems[0], /ANTHROPIC_API_KEY is not set/);
    assert.deepEqual(
      doc.configFiles.map((f: { scope: string; path: string }) => [f.scope, f.path]),
      [['project', projectConfig], ['home', homeConfig]],
    );
  });

  it('says the key is present without ever printing it', async () => {
    const secret = 'sk-ant-very-secret-value-123';
    const run = await status([], { ANTHROPIC_API_KEY: secret });
    const doc = assertSchema('ai-status', run.json);
    assert.equal(doc.provider.from, 'default: ANTHROPIC_API_KEY is set');
    assert.deepEqual(doc.apiKey, { variable: 'ANTHROPIC_API_KEY', present: true });
    assert.equal(doc.ready, true);
    assert.ok(!run.stdout.includes(secret) && !run.stderr.includes(secret));
    const human = await roost(['ai', 'status'], { cwd: repo.work, env: { ...CLEAN_ENV, ROOST_HOME: home, ANTHROPIC_API_KEY: secret } });
    assert.match(human.stdout, /ANTHROPIC_API_KEY is set/);
    assert.ok(!human.stdout.includes(secret));
  });

  it('falls back to Ollama when only OLLAMA_HOST is set, normalising the address', async () => {
    const doc = assertSchema('ai-status', (await status([], { OLLAMA_HOST: '127.0.0.1:9999' })).json);
    assert.deepEqual(doc.provider, { value: 'ollama', source: 'default', from: 'default: OLLAMA_HOST is set and ANTHROPIC_API_KEY is not' });
    assert.equal(doc.model.value, 'llama3.2');
    assert.deepEqual(doc.baseUrl, { value: 'http://127.0.0.1:9999', source: 'env', from: 'OLLAMA_HOST' });
    assert.equal(doc.apiKey, null);
    assert.equal(doc.ready, true);
  });

  it('takes provider, model and host from the home config', async () => {
    const home = '[ai]\nprovider = "ollama"\nmodel = "qwen2.5-coder:7b"\n\n[ai.ollama]\nhost = "http://127.0.0.1:7777"\n';
    const doc = assertSchema('ai-status', (await status([], {}, { home })).json);
    assert.deepEqual(doc.provider, { value: 'ollama', source: 'home', from: `${homeConfig} [ai] provider` });
    assert.deepEqual(doc.model, { value: 'qwen2.5-coder:7b', source: 'home', from: `${homeConfig} [ai] model` });
    assert.deepEqual(doc.baseUrl, { value: 'http://127.0.0.1:7777', source: 'home', from: `${homeConfig} [ai.ollama] host` });
    assert.ok(doc.configFiles.every((f: { exists: boolean }) => f.exists));
  });

  it('lets the project config win over the home config', async () => {
    const home = '[ai]\nprovider = "ollama"\nmodel = "qwen2.5-coder:7b"\n';
    const project = '[ai]\nprovider = "anthropic"\nmodel = "claude-opus-5-5"\n\n[ai.anthropic]\nbase_url = "https://proxy.example.test/anthropic"\n';
    const doc = assertSchema('ai-status', (await status([], { ANTHROPIC_API_KEY: 'k' }, { home, project })).json);
    assert.deepEqual(doc.provider, { value: 'anthropic', source: 'project', from: `${projectConfig} [ai] provider` });
    assert.deepEqual(doc.model, { value: 'claude-opus-5-5', source: 'project', from: `${projectConfig} [ai] model` });
    assert.equal(doc.baseUrl.value, 'https://proxy.example.test/anthropic');
    assert.equal(doc.baseUrl.source, 'project');
  });

  it('lets the environment win over the config files, and keeps a model with its own provider', async () => {
    const project = '[ai]\nprovider = "anthropic"\nmodel = "claude-opus-5-5"\n';
    const home = '[ai.ollama]\nmodel = "phi4"\n';
    const doc = assertSchema('ai-status', (await status([], { ROOST_AI_PROVIDER: 'ollama' }, { project, home })).json);
    assert.deepEqual(doc.provider, { value: 'ollama', source: 'env', from: 'ROOST_AI_PROVIDER' });
    // The project's model belongs to its anthropic provider; the home file names one for ollama.
    assert.deepEqual(doc.model, { value: 'phi4', source: 'home', from: `${homeConfig} [ai.ollama] model` });

    const withModel = assertSchema('ai-status', (await status([], { ROOST_AI_PROVIDER: 'ollama', ROOST_AI_MODEL: 'mistral' }, { project })).json);
    assert.deepEqual(withModel.model, { value: 'mistral', source: 'env', from: 'ROOST_AI_MODEL' });
    const urls = assertSchema('ai-status', (await status([], { ANTHROPIC_BASE_URL: 'http://127.0.0.1:1234', ANTHROPIC_API_KEY: 'k' }, { project })).json);
    assert.deepEqual(urls.baseUrl, { value: 'http://127.0.0.1:1234', source: 'env', from: 'ANTHROPIC_BASE_URL' });
  });

  it('lets flags win over everything', async () => {
    const project = '[ai]\nprovider = "ollama"\nmodel = "phi4"\n';
    const env = { ROOST_AI_PROVIDER: 'ollama', ROOST_AI_MODEL: 'mistral' };
    const doc = assertSchema('ai-status', (await status(['--provider', 'anthropic', '--model', 'claude-haiku-5-5'], env, { project })).json);
    assert.deepEqual(doc.provider, { value: 'anthropic', source: 'flag', from: '--provider' });
    assert.deepEqual(doc.model, { value: 'claude-haiku-5-5', source: 'flag', from: '--model' });
    const providerOnly = assertSchema('ai-status', (await status(['--provider', 'anthropic'], env, { project })).json);
    assert.equal(providerOnly.model.source, 'default', 'models named for ollama do not apply to anthropic');
  });

  it('prints a readable table without --json', async () => {
    await writeFile(projectConfig, '[ai]\nprovider = "ollama"\n');
    const run = await roost(['ai', 'status'], { cwd: repo.work, env: { ...CLEAN_ENV, ROOST_HOME: home } });
    assert.equal(run.code, 0, run.stderr + run.stdout);
    assert.match(run.stdout, /^provider\s+ollama\s+\(.*config\.toml \[ai\] provider\)$/m);
    assert.match(run.stdout, /^model\s+llama3\.2\s+\(built-in default for ollama\)$/m);
  });

  it('rejects bad flags, variables and config files with clear errors', async () => {
    const badFlag = await status(['--provider', 'openai']);
    assert.equal(badFlag.code, 2, badFlag.stderr + badFlag.stdout);
    assert.equal(assertSchema('error', badFlag.json).error.code, 'USAGE');
    assert.match(badFlag.json.error.message, /--provider must be one of anthropic, ollama/);
    const unknown = await status(['--bogus']);
    assert.equal(unknown.code, 2, unknown.stderr + unknown.stdout);
    assert.equal(assertSchema('error', unknown.json).error.code, 'USAGE');

    const badEnv = await status([], { ROOST_AI_PROVIDER: 'gpt' });
    assert.equal(badEnv.code, 1, badEnv.stderr + badEnv.stdout);
    assert.equal(assertSchema('error', badEnv.json).error.code, 'CONFIG_ERROR');
    assert.match(badEnv.json.error.message, /ROOST_AI_PROVIDER/);

    const badToml = await status([], {}, { project: '[ai\nprovider = ' });
    assert.equal(badToml.code, 1, badToml.stderr + badToml.stdout);
    assert.match(assertSchema('error', badToml.json).error.message, new RegExp(`${projectConfig.replaceAll('/', '\\/')} is not valid TOML`));
    const unknownKey = await status([], {}, { home: '[ai]\nprovidr = "ollama"\n' });
    assert.equal(unknownKey.code, 1, unknownKey.stderr + unknownKey.stdout);
    assert.match(assertSchema('error', unknownKey.json).error.message, /unknown key "providr"/);
    const badValue = await status([], {}, { home: '[ai]\nprovider = "bard"\n' });
    assert.match(assertSchema('error', badValue.json).error.message, /ai\.provider: must be one of anthropic, ollama/);
    const badHost = await status([], { OLLAMA_HOST: 'http://[not an address' , ROOST_AI_PROVIDER: 'ollama' });
    assert.equal(badHost.code, 1, badHost.stderr + badHost.stdout);
    assert.match(assertSchema('error', badHost.json).error.message, /OLLAMA_HOST: .* is not a valid address/);
  });

  describe('--check', () => {
    let anthropic: FakeAnthropic;
    let ollama: FakeOllama;
    before(async () => {
      anthropic = await startFakeAnthropic();
      ollama = await startFakeOllama({ models: ['llama3.2'] });
    });
    after(async () => {
      await anthropic.close();
      await ollama.close();
    });

    it('asks Anthropic whether it knows the model', async () => {
      const env = { ANTHROPIC_API_KEY: FAKE_ANTHROPIC_KEY, ANTHROPIC_BASE_URL: anthropic.url };
      const known = await status(['--check'], env);
      assert.equal(known.code, 0, known.stdout);
      assert.deepEqual(assertSchema('ai-status', known.json).check, { reachable: true, modelAvailable: true, detail: 'model claude-sonnet-5-5 is available' });
      const unknown = await status(['--check', '--model', 'claude-unheard-of'], env);
      assert.equal(unknown.code, 1, unknown.stderr + unknown.stdout);
      const doc = assertSchema('ai-status', unknown.json);
      assert.equal(doc.ok, false);
      assert.equal(doc.check.modelAvailable, false);
      assert.equal(anthropic.requests.at(-1)!.path, '/v1/models/claude-unheard-of');
    });

    it('asks Ollama whether the model is installed, and notices when nothing listens', async () => {
      const env = { OLLAMA_HOST: ollama.url, ROOST_AI_PROVIDER: 'ollama' };
      const installed = await status(['--check'], env);
      assert.equal(installed.code, 0, installed.stderr + installed.stdout);
      assert.equal(assertSchema('ai-status', installed.json).check.modelAvailable, true);
      const missing = await status(['--check', '--model', 'mistral'], env);
      assert.equal(missing.code, 1, missing.stderr + missing.stdout);
      assert.match(assertSchema('ai-status', missing.json).check.detail, /ollama pull mistral/);

      const closed = await startFakeOllama();
      await closed.close();
      const down = await status(['--check'], { OLLAMA_HOST: closed.url, ROOST_AI_PROVIDER: 'ollama' });
      assert.equal(down.code, 1, down.stderr + down.stdout);
      const doc = assertSchema('ai-status', down.json);
      assert.equal(doc.check.reachable, false);
      assert.match(doc.check.detail, /cannot reach ollama/);
    });

    it('fails without asking when the key is missing', async () => {
      const before = anthropic.requests.length;
      const run = await status(['--check'], { ANTHROPIC_BASE_URL: anthropic.url });
      assert.equal(run.code, 1, run.stderr + run.stdout);
      assert.equal(assertSchema('ai-status', run.json).ready, false);
      assert.equal(anthropic.requests.length, before);
    });
  });
});
