// `roost introspect`: the command tree from the same spec list the parser uses, plugin commands included.
import assert from 'node:assert/strict';
import { tmpdir } from 'node:os';
import { after, before, describe, it } from 'node:test';
import { assertSchema } from './json-schema.js';
import { pluginHome, type PluginHome } from './plugins-env.js';

describe('roost introspect', () => {
  let plugins: PluginHome;
  before(async () => {
    plugins = await pluginHome();
  });
  after(() => plugins.cleanup());

  it('describes every built-in command with its arguments and options', async () => {
    const result = await plugins.run(['introspect', '--json'], tmpdir());
    assert.equal(result.code, 0, result.stderr);
    const doc = assertSchema('introspect', result.json);
    const byName = new Map(doc.commands.map((c: any) => [c.name, c]));
    for (const name of ['run', 'lanes run', 'lanes list', 'lanes create', 'lanes publish', 'lanes import', 'work start', 'work push', 'introspect']) {
      assert.ok(byName.has(name), `${name} is listed`);
      assert.equal((byName.get(name) as any).source, 'builtin');
    }
    const lanesRun = byName.get('lanes run') as any;
    assert.deepEqual(lanesRun.args, [{ name: 'lane', required: true, variadic: false }]);
    assert.deepEqual(lanesRun.options.map((o: any) => o.flags), ['--dry-run']);
    assert.deepEqual((byName.get('run') as any).args, [{ name: 'task', required: false, variadic: false }]);
    const kind = (byName.get('work start') as any).options.find((o: any) => o.name === 'kind');
    assert.deepEqual(kind, { flags: '--kind <kind>', name: 'kind', description: 'Kind segment of the branch', takesValue: true, default: 'feat' });
    assert.deepEqual(doc.globalOptions.map((o: any) => o.name), ['json', 'nonInteractive', 'help', 'version']);
  });

  it('lists the environment a command reads in its --help', async () => {
    const help = await plugins.run(['serve', '--help'], tmpdir());
    assert.equal(help.code, 0, help.stderr);
    assert.match(help.stdout, /Environment:\n {2}ROOST_API_KEY /);
    for (const name of ['ROOST_ALLOWED_ROOTS', 'ROOST_DATABASE_URL', 'ANTHROPIC_API_KEY', 'OLLAMA_HOST']) assert.ok(help.stdout.includes(name), name);
    assert.doesNotMatch((await plugins.run(['run', '--help'], tmpdir())).stdout, /Environment:/);
  });

  it('includes the commands of installed plugins, named by their plugin', async () => {
    await plugins.install('hooked');
    const doc = assertSchema('introspect', (await plugins.run(['introspect', '--json'], tmpdir())).json);
    const hello = doc.commands.find((c: any) => c.name === 'hello');
    assert.ok(hello, 'the plugin command is listed');
    assert.equal(hello.source, 'cli-plugin-hooked');
    assert.equal(hello.description, 'Greets, with what post_install stored');
  });

  it('prints one usage line per command for people', async () => {
    const result = await plugins.run(['introspect'], tmpdir());
    assert.equal(result.code, 0, result.stderr);
    assert.match(result.stdout, /^lanes run <lane>\s+Run a lane from lanes\.toml$/m);
    assert.match(result.stdout, /^work start \[name\]\s+/m);
  });
});
