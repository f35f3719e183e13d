// `roost sbom [--format spdx|cyclonedx] [--json]`: a software bill of materials of the dependencies locked
// in the project's lockfiles (read by the deps plugin's parsers). The document goes to stdout
// (`roost sbom > bom.json`): the plugin has no filesystem capability, so it never writes into the project.
import { basename } from 'node:path';
import { RoostError } from '../../protocol/errors.js';
import { LOOKED_FOR, readLockfiles } from '../../lib/lockfiles/lockfiles.js';
import { parseFlags, runPlugin } from '../../sdk/plugin-client.js';
import { cycloneDxDocument } from './cyclonedx.js';
import { spdxDocument } from './spdx.js';

const FORMATS = { spdx: spdxDocument, cyclonedx: cycloneDxDocument } as const;

const USAGE = 'usage: roost sbom [--format spdx|cyclonedx] [--json]\n  Prints an SBOM of the locked dependencies: SPDX 2.3 JSON (default) or CycloneDX 1.5 JSON.\n  --json wraps it: {format, root, packages, document}.';

runPlugin(async (ctx) => {
  const { values } = parseFlags(ctx.init.args, {
    format: { type: 'string', default: 'spdx' },
    json: { type: 'boolean' },
  });
  const format = values.format as string;
  if (!(format in FORMATS)) throw new RoostError('USAGE', `--format "${format}" is not one of ${Object.keys(FORMATS).join(', ')}`);
  const meta = await ctx.host.metadata(['root', 'name']);
  const root = typeof meta.root === 'string' ? meta.root : ctx.init.project?.root ?? process.cwd();
  const { lockfiles, packages } = await readLockfiles(root);
  if (lockfiles.length === 0) {
    throw new RoostError('NOT_FOUND', `no lockfile or manifest in ${root} (looked for ${LOOKED_FOR})`);
  }
  const document = FORMATS[format as keyof typeof FORMATS]({
    name: typeof meta.name === 'string' ? meta.name : basename(root),
    created: new Date().toISOString().replace(/\.\d{3}Z$/, 'Z'),
    toolVersion: ctx.init.plugin.version,
    packages,
  });
  if (values.json) ctx.json({ format, root, packages: packages.length, document });
  else ctx.print(JSON.stringify(document, null, 2));
  return 0;
}, USAGE);
