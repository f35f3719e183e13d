// `roost license [--check] [--allow <ids>] [--deny <ids>] [--allow-unknown] [--config <file>] [--json]`:
// the licenses of the locked dependencies (from installed package metadata) and, with --check, their
// verdict against the policy. Exit 1 on a violation, so CI can gate on it. An unknown license is one,
// unless the policy accepts unknown ones: nothing passes a check because nothing could be read.
import { join, resolve } from 'node:path';
import { RoostError } from '../../protocol/errors.js';
import { LOOKED_FOR, readLockfiles } from '../../lib/lockfiles/lockfiles.js';
import { parseFlags, runPlugin } from '../../sdk/plugin-client.js';
import { installedLicenses, licenseKey } from './installed.js';
import { acceptable, identifiers, readPolicy, type Policy } from './policy.js';

type Status = 'allowed' | 'denied' | 'unknown' | 'unchecked';

interface Row {
  ecosystem: string;
  name: string;
  version: string;
  license: string | null;
  status: Status;
}

const USAGE = 'usage: roost license [--check] [--allow <ids>] [--deny <ids>] [--allow-unknown] [--config <file>] [--json]\n  Licenses of the locked dependencies, read from installed metadata (node_modules, .venv, the cargo registry).\n  --check           judge them against [license] allow/deny in roost.toml (or --config) plus the flags;\n                    exit 1 when a license is not acceptable or not known\n  --allow, --deny   comma-separated SPDX identifiers, added to the config\'s lists\n  --allow-unknown   a dependency without a known license passes (allow_unknown = true in [license])\n  --strict          kept for old scripts: an unknown license fails the check by default';

runPlugin(async (ctx) => {
  const { values } = parseFlags(ctx.init.args, {
    check: { type: 'boolean' },
    allow: { type: 'string', multiple: true },
    deny: { type: 'string', multiple: true },
    config: { type: 'string' },
    'allow-unknown': { type: 'boolean' },
    strict: { type: 'boolean' },
    json: { type: 'boolean' },
  });
  const meta = await ctx.host.metadata(['root']);
  const root = typeof meta.root === 'string' ? meta.root : ctx.init.project?.root ?? process.cwd();
  const configPath = values.config === undefined ? join(root, 'roost.toml') : resolve(values.config);
  const fromFile = await readPolicy(configPath, values.config !== undefined);
  const split = (lists: string[] | undefined) => (lists ?? []).flatMap((l) => l.split(',')).map((l) => l.trim()).filter(Boolean);
  const policy: Policy = { allow: [...fromFile.allow, ...split(values.allow)], deny: [...fromFile.deny, ...split(values.deny)], allowUnknown: fromFile.allowUnknown || values['allow-unknown'] === true };
  const { lockfiles, packages } = await readLockfiles(root);
  if (lockfiles.length === 0) throw new RoostError('NOT_FOUND', `no lockfile or manifest in ${root} (looked for ${LOOKED_FOR})`);
  const licenses = await installedLicenses(root, packages);
  const found = packages.map((p) => ({ ...p, license: licenses.get(licenseKey(p.ecosystem, p.name, p.version)) ?? null }));
  if (values.check && policy.allow.length === 0 && policy.deny.length === 0) {
    throw new RoostError('USAGE', `--check needs a policy: [license] allow / deny in ${configPath}, or --allow / --deny.\n${suggestion(found.map((p) => p.license))}`);
  }
  const rows: Row[] = found.map(({ ecosystem, name, version, license }) => {
    const status: Status = !values.check ? 'unchecked' : license === null ? 'unknown' : acceptable(license, policy) ? 'allowed' : 'denied';
    return { ecosystem, name, version, license, status };
  });
  const violations = rows.filter((r) => r.status === 'denied' || (r.status === 'unknown' && !policy.allowUnknown));
  const ok = violations.length === 0;
  if (values.json) ctx.json({ root, checked: values.check === true, policy, packages: rows, violations: violations.length }, ok);
  else ctx.print(describe(rows, violations, values.check === true, policy.allowUnknown));
  return ok ? 0 : 1;
}, USAGE);

function describe(rows: Row[], violations: Row[], checked: boolean, allowUnknown: boolean): string {
  const line = (r: Row) => `  ${r.name} ${r.version} (${r.ecosystem}): ${r.license ?? 'unknown (not installed or no license declared)'}`;
  if (!checked) return [`${rows.length} locked dependencies:`, ...rows.map(line)].join('\n');
  const unknown = rows.filter((r) => r.status === 'unknown');
  const unknownHead = allowUnknown
    ? `${unknown.length} without a known license, accepted by the policy (allow unknown):`
    : `${unknown.length} without a known license (install the dependencies so theirs can be read, or accept unknown ones with --allow-unknown or allow_unknown = true in [license]):`;
  return [
    violations.length === 0 ? `All ${rows.length} dependency licenses are acceptable.` : `${violations.length} license violations:`,
    ...rows.filter((r) => r.status === 'denied').map(line),
    ...(unknown.length > 0 ? [unknownHead, ...unknown.map(line)] : []),
  ].join('\n');
}

/** For a first run without a policy: the licenses found, and the [license] table that accepts them. */
function suggestion(licenses: Array<string | null>): string {
  const counts = new Map<string, number>();
  for (const license of licenses) counts.set(license ?? 'unknown', (counts.get(license ?? 'unknown') ?? 0) + 1);
  const ids = [...new Set(licenses.flatMap((l) => (l === null ? [] : identifiers(l))))].sort();
  const unknown = counts.get('unknown') ?? 0;
  return [
    'The licenses found now:',
    ...[...counts].sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0])).map(([license, n]) => `  ${license}: ${n}`),
    'To accept what is there today, add to roost.toml (and remove what you do not want):',
    '[license]',
    `allow = [${ids.map((id) => JSON.stringify(id)).join(', ')}]`,
    ...(unknown > 0 ? [`# ${unknown} without a known license fail the check; allow_unknown = true accepts them`] : []),
  ].join('\n');
}
