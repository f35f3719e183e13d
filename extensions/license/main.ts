// `roost license [--check] [--allow <ids>] [--deny <ids>] [--config <file>] [--strict] [--json]`: the
// licenses of the locked dependencies (from installed package metadata) and, with --check, their verdict
// against the policy. Exit 1 on a violation, so CI can gate on it.
import { join, resolve } from 'node:path';
import { RoostError } from '../../protocol/errors.js';
import { READERS, readLockfiles } from '../_shared/lockfiles/lockfiles.js';
import { parseFlags, runPlugin } from '../_shared/plugin-client.js';
import { installedLicenses, licenseKey } from './installed.js';
import { acceptable, readPolicy, type Policy } from './policy.js';

type Status = 'allowed' | 'denied' | 'unknown' | 'unchecked';

interface Row {
  ecosystem: string;
  name: string;
  version: string;
  license: string | null;
  status: Status;
}

const USAGE = 'usage: roost license [--check] [--allow <ids>] [--deny <ids>] [--config <file>] [--strict] [--json]\n  Licenses of the locked dependencies, read from installed metadata (node_modules, .venv).\n  --check           judge them against [license] allow/deny in roost.toml (or --config) plus the flags;\n                    exit 1 when a license is not acceptable\n  --allow, --deny   comma-separated SPDX identifiers, added to the config\'s lists\n  --strict          a dependency without a known license is a violation too';

runPlugin(async (ctx) => {
  const { values } = parseFlags(ctx.init.args, {
    check: { type: 'boolean' },
    allow: { type: 'string', multiple: true },
    deny: { type: 'string', multiple: true },
    config: { type: 'string' },
    strict: { type: 'boolean' },
    json: { type: 'boolean' },
  });
  const meta = await ctx.host.metadata(['root']);
  const root = typeof meta.root === 'string' ? meta.root : ctx.init.project?.root ?? process.cwd();
  const configPath = values.config === undefined ? join(root, 'roost.toml') : resolve(values.config);
  const fromFile = await readPolicy(configPath, values.config !== undefined);
  const split = (lists: string[] | undefined) => (lists ?? []).flatMap((l) => l.split(',')).map((l) => l.trim()).filter(Boolean);
  const policy: Policy = { allow: [...fromFile.allow, ...split(values.allow)], deny: [...fromFile.deny, ...split(values.deny)] };
  if (values.check && policy.allow.length === 0 && policy.deny.length === 0) {
    throw new RoostError('USAGE', `--check needs a policy: [license] allow / deny in ${configPath}, or --allow / --deny`);
  }
  const { lockfiles, packages } = await readLockfiles(root);
  if (lockfiles.length === 0) throw new RoostError('NOT_FOUND', `no lockfile in ${root} (looked for ${READERS.map((r) => r.file).join(', ')})`);
  const licenses = await installedLicenses(root);
  const rows: Row[] = packages.map((p) => {
    const license = licenses.get(licenseKey(p.ecosystem, p.name, p.version)) ?? null;
    const status: Status = !values.check ? 'unchecked' : license === null ? 'unknown' : acceptable(license, policy) ? 'allowed' : 'denied';
    return { ecosystem: p.ecosystem, name: p.name, version: p.version, license, status };
  });
  const violations = rows.filter((r) => r.status === 'denied' || (values.strict && r.status === 'unknown'));
  const ok = violations.length === 0;
  if (values.json) ctx.json({ root, checked: values.check === true, policy, packages: rows, violations: violations.length }, ok);
  else ctx.print(describe(rows, violations, values.check === true));
  return ok ? 0 : 1;
}, USAGE);

function describe(rows: Row[], violations: Row[], checked: boolean): string {
  const line = (r: Row) => `  ${r.name} ${r.version} (${r.ecosystem}): ${r.license ?? 'unknown (not installed or no license declared)'}`;
  if (!checked) return [`${rows.length} locked dependencies:`, ...rows.map(line)].join('\n');
  const unknown = rows.filter((r) => r.status === 'unknown');
  return [
    violations.length === 0 ? `All ${rows.length} dependency licenses are acceptable.` : `${violations.length} license violations:`,
    ...violations.map(line),
    ...(unknown.length > 0 ? [`${unknown.length} without a known license:`, ...unknown.map(line)] : []),
  ].join('\n');
}
