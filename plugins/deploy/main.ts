// `roost deploy --target <name>` runs the target's commands from roost.toml [deploy.<name>] one after
// the other, as the person (exec: their credentials, their network), each through a streamed exec so its
// output shows as it is printed, however long it runs. The first failing command stops the deploy and its
// exit code is roost's. A target that asks for confirmation (production by default) needs a yes or --yes.
// `roost deploy` alone lists the targets.
import { join } from 'node:path';
import { RoostError } from '../../protocol/errors.js';
import { parseFlags, runPlugin, type PluginContext } from '../../sdk/plugin-client.js';
import { readTargets, withEnv, type DeployTarget } from './targets.js';

const USAGE = [
  'usage: roost deploy --target <name> [--yes] [--dry-run] [--json]',
  '       roost deploy [--json]            lists the targets',
  '  Runs the commands of roost.toml [deploy.<name>] in order, their output streamed; stops at the first',
  '  that fails and exits with its code. --yes answers the confirmation a target asks for (production',
  '  and prod ask by default); --dry-run shows what would run.',
].join('\n');

interface StepResult {
  command: string;
  code: number;
  seconds: number;
}

runPlugin(async (ctx) => {
  const { values, positionals } = parseFlags(ctx.init.args, {
    target: { type: 'string', short: 't' }, yes: { type: 'boolean', short: 'y' }, 'dry-run': { type: 'boolean' }, json: { type: 'boolean' },
  }, true);
  if (positionals.length > 0) throw new RoostError('USAGE', `unexpected argument ${positionals[0]}: name the target with --target`);
  const file = join(ctx.init.project?.root ?? process.cwd(), 'roost.toml');
  const targets = await readTargets(file);
  if (values.target === undefined) return list(ctx, targets, file, values.json === true);
  const target = targets.find((t) => t.name === values.target);
  if (!target) {
    const known = targets.length > 0 ? `; targets: ${targets.map((t) => t.name).join(', ')}` : `; ${file} has no [deploy.<name>] table`;
    throw new RoostError('USAGE', `no deploy target "${values.target}"${known}`);
  }
  if (values['dry-run']) return dryRun(ctx, target, values.json === true);
  if (target.confirm && !values.yes && !(await ctx.confirm(`Deploy to ${target.name}? It runs: ${target.commands.join(' && ')}`, false))) {
    throw new RoostError('USAGE', `deploy to ${target.name} not confirmed (answer y, or pass --yes); nothing ran`);
  }
  return deploy(ctx, target, values.json === true);
}, USAGE);

async function deploy(ctx: PluginContext, target: DeployTarget, json: boolean): Promise<number> {
  const steps: StepResult[] = [];
  for (const command of target.commands) {
    if (ctx.signal.aborted) break;
    process.stderr.write(`==> ${command}\n`);
    const started = Date.now();
    const running = ctx.host.execStream(withEnv(command, target.env), (stream, data) => {
      // With --json, stdout holds the one result document: the commands' output goes to stderr.
      if (stream === 'stdout' && !json) ctx.host.output(data);
      else process.stderr.write(data);
    }, { cwd: target.cwd, timeout: target.timeoutS });
    // Interrupted, the plugin leaves at once: roost then stops the command it was running.
    const code = await Promise.race([running.then((result) => result.code), interrupted(ctx.signal)]);
    steps.push({ command, code, seconds: Math.round((Date.now() - started) / 100) / 10 });
    if (code !== 0) break;
  }
  const failed = steps.find((s) => s.code !== 0);
  const code = ctx.signal.aborted ? 130 : failed?.code ?? 0;
  if (json) ctx.json({ target: target.name, deployed: code === 0, steps }, code === 0);
  else if (failed) process.stderr.write(`deploy to ${target.name} failed: "${failed.command}" exited with ${failed.code}\n`);
  else if (code === 0) ctx.print(`Deployed to ${target.name} (${steps.length} command${steps.length === 1 ? '' : 's'}).`);
  return code;
}

function interrupted(signal: AbortSignal): Promise<number> {
  return new Promise((resolve) => {
    if (signal.aborted) resolve(130);
    else signal.addEventListener('abort', () => resolve(130), { once: true });
  });
}

function dryRun(ctx: PluginContext, target: DeployTarget, json: boolean): number {
  if (json) {
    ctx.json({ target: target.name, dryRun: true, commands: target.commands, cwd: target.cwd, env: Object.keys(target.env), confirm: target.confirm });
  } else {
    ctx.print(`Would deploy to ${target.name} in ${target.cwd}${target.confirm ? ' (asks for confirmation)' : ''}:`);
    for (const command of target.commands) ctx.print(`  ${command}`);
  }
  return 0;
}

function list(ctx: PluginContext, targets: DeployTarget[], file: string, json: boolean): number {
  if (json) {
    ctx.json({ targets: targets.map((t) => ({ name: t.name, description: t.description, commands: t.commands, confirm: t.confirm })) });
  } else if (targets.length === 0) {
    ctx.print(`No deploy targets: add a [deploy.<name>] table to ${file} (see roost deploy --help).`);
  } else {
    const width = Math.max(...targets.map((t) => t.name.length));
    for (const t of targets) ctx.print(`${t.name.padEnd(width)}  ${t.description || t.commands.join(' && ')}${t.confirm ? '  (confirm)' : ''}`);
  }
  return 0;
}
