// `roost deps [--outdated] [--audit] [--json]`: the locked dependencies of the project, how far behind
// their registries they are, and which have known advisories. Exit 1 when --audit finds any.
import { RoostError } from '../../protocol/errors.js';
import { parseFlags, runPlugin, type PluginContext } from '../../sdk/plugin-client.js';
import { audit, type Finding } from './advisories.js';
import { latestVersions } from './latest.js';
import { LOOKED_FOR, readLockfiles, type LockedPackage } from '../../lib/lockfiles/lockfiles.js';
import { compareVersions } from './versions.js';

interface Outdated {
  ecosystem: string;
  name: string;
  current: string;
  latest: string;
}

const USAGE = 'usage: roost deps [--outdated] [--audit] [--json]\n  Locked dependencies from Cargo.lock, package-lock.json, pnpm-lock.yaml, yarn.lock, bun.lock,\n  poetry.lock, uv.lock, requirements.txt.\n  --outdated  compare with the registries (ROOST_DEPS_REGISTRY)\n  --audit     known advisories (ROOST_ADVISORIES); exit 1 when any';

runPlugin(async (ctx) => {
  const { values } = parseFlags(ctx.init.args, {
    outdated: { type: 'boolean' },
    audit: { type: 'boolean' },
    json: { type: 'boolean' },
  });
  const root = await projectRoot(ctx);
  const { lockfiles, packages } = await readLockfiles(root);
  if (lockfiles.length === 0) {
    throw new RoostError('NOT_FOUND', `no lockfile or manifest in ${root} (looked for ${LOOKED_FOR})`);
  }
  const outdated = values.outdated ? await findOutdated(packages, ctx) : undefined;
  const vulnerabilities = values.audit ? await audit(packages, process.env) : undefined;
  const ok = !vulnerabilities || vulnerabilities.length === 0;
  if (values.json) {
    ctx.json({ root, lockfiles, packages, ...(outdated ? { outdated } : {}), ...(vulnerabilities ? { vulnerabilities } : {}) }, ok);
  } else {
    ctx.print(describe(root, lockfiles.map((l) => (l.declared ? `${l.file}: declared ranges, their lowest versions` : l.file)), packages, outdated, vulnerabilities));
  }
  return ok ? 0 : 1;
}, USAGE);

/** The project root as the host reports it (metadata), else where roost was started. */
async function projectRoot(ctx: PluginContext): Promise<string> {
  const meta = await ctx.host.metadata(['root']);
  return typeof meta.root === 'string' ? meta.root : ctx.init.project?.root ?? process.cwd();
}

async function findOutdated(packages: LockedPackage[], ctx: PluginContext): Promise<Outdated[]> {
  ctx.host.progress({ message: 'asking the registries', current: 0, total: packages.length });
  const latest = await latestVersions(packages, process.env);
  ctx.host.progress({ message: 'asking the registries', current: packages.length, total: packages.length, done: true });
  return packages.flatMap((pkg) => {
    const version = latest.get(pkg);
    return version && compareVersions(version, pkg.version) > 0
      ? [{ ecosystem: pkg.ecosystem, name: pkg.name, current: pkg.version, latest: version }]
      : [];
  });
}

function describe(root: string, files: string[], packages: LockedPackage[], outdated?: Outdated[], findings?: Finding[]): string {
  const lines = [`${packages.length} locked dependencies in ${root} (${files.join(', ')})`];
  if (!outdated && !findings) lines.push(...packages.map((p) => `  ${p.name} ${p.version} (${p.ecosystem})`));
  if (outdated) {
    lines.push(outdated.length === 0 ? 'All dependencies are up to date.' : `${outdated.length} outdated:`);
    lines.push(...outdated.map((o) => `  ${o.name} ${o.current} -> ${o.latest} (${o.ecosystem})`));
  }
  if (findings) {
    lines.push(findings.length === 0 ? 'No known advisories.' : `${findings.length} advisories:`);
    lines.push(...findings.map((f) => `  ${f.id} ${f.name} ${f.version}${f.severity ? ` [${f.severity}]` : ''}: ${f.summary}${f.fixed ? ` (fixed in ${f.fixed})` : ''}`));
  }
  return lines.join('\n');
}
