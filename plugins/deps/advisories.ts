// Known advisories for the locked versions, in OSV's format. ROOST_ADVISORIES names a local JSON file
// (or URL) holding an array of OSV records (or {"vulns": [...]}); without it the OSV API is asked
// (ROOST_OSV_API, default https://api.osv.dev): /v1/querybatch, then /v1/vulns/<id> for each hit.
import { RoostError } from '../../protocol/errors.js';
import { normaliseName, type LockedPackage } from '../../lib/lockfiles/lockfiles.js';
import { getJson, readJsonSource } from './sources.js';
import { fixedAbove, inRange, type OsvEvent } from './versions.js';

export interface OsvRecord {
  id: string;
  summary?: string;
  details?: string;
  aliases?: string[];
  database_specific?: { severity?: string };
  affected?: Array<{
    package?: { ecosystem?: string; name?: string };
    ranges?: Array<{ type?: string; events?: OsvEvent[] }>;
    versions?: string[];
  }>;
}

export interface Finding {
  id: string;
  ecosystem: string;
  name: string;
  version: string;
  summary: string;
  severity: string | null;
  fixed: string | null;
  aliases: string[];
}

export async function audit(packages: LockedPackage[], env: NodeJS.ProcessEnv): Promise<Finding[]> {
  const records = env.ROOST_ADVISORIES ? await fileRecords(env.ROOST_ADVISORIES) : await osvRecords(packages, env);
  const findings: Finding[] = [];
  for (const pkg of packages) {
    for (const record of records) {
      const finding = match(record, pkg);
      if (finding) findings.push(finding);
    }
  }
  return findings.sort((a, b) => a.name.localeCompare(b.name) || a.id.localeCompare(b.id));
}

function match(record: OsvRecord, pkg: LockedPackage): Finding | undefined {
  const name = normaliseName(pkg.ecosystem, pkg.name);
  for (const affected of record.affected ?? []) {
    const target = affected.package;
    if (!target?.ecosystem || !target.name) continue;
    if (target.ecosystem.toLowerCase() !== pkg.ecosystem.toLowerCase() || normaliseName(pkg.ecosystem, target.name) !== name) continue;
    const ranges = (affected.ranges ?? []).filter((r) => r.type !== 'GIT' && Array.isArray(r.events));
    const listed = affected.versions?.includes(pkg.version) ?? false;
    const hit = ranges.find((r) => inRange(pkg.version, r.events!));
    if (!listed && !hit) continue;
    return {
      id: record.id,
      ecosystem: pkg.ecosystem,
      name: pkg.name,
      version: pkg.version,
      summary: record.summary ?? record.details?.split('\n')[0] ?? '',
      severity: record.database_specific?.severity ?? null,
      fixed: (hit && fixedAbove(pkg.version, hit.events!)) ?? null,
      aliases: record.aliases ?? [],
    };
  }
  return undefined;
}

async function fileRecords(location: string): Promise<OsvRecord[]> {
  const data = await readJsonSource(location, 'ROOST_ADVISORIES');
  const list = Array.isArray(data) ? data : (data as { vulns?: unknown })?.vulns;
  if (!Array.isArray(list) || !list.every((r) => typeof r === 'object' && r !== null && typeof (r as OsvRecord).id === 'string')) {
    throw new RoostError('VALIDATION_ERROR', 'ROOST_ADVISORIES must hold an array of OSV records (each with an id), or {"vulns": [...]}');
  }
  return list as OsvRecord[];
}

async function osvRecords(packages: LockedPackage[], env: NodeJS.ProcessEnv): Promise<OsvRecord[]> {
  if (packages.length === 0) return [];
  const base = (env.ROOST_OSV_API || 'https://api.osv.dev').replace(/\/+$/, '');
  const queries = packages.map((p) => ({ package: { ecosystem: p.ecosystem, name: p.name }, version: p.version }));
  const batch = await getJson(`${base}/v1/querybatch`, 'the OSV API', { queries });
  if (batch.status !== 200) throw new RoostError('UPSTREAM_ERROR', `the OSV API answered HTTP ${batch.status}`);
  const results = (batch.body as { results?: Array<{ vulns?: Array<{ id?: string }> }> })?.results ?? [];
  const ids = [...new Set(results.flatMap((r) => (r.vulns ?? []).map((v) => v.id).filter((id): id is string => typeof id === 'string')))];
  const records: OsvRecord[] = [];
  for (const id of ids) {
    const res = await getJson(`${base}/v1/vulns/${encodeURIComponent(id)}`, 'the OSV API');
    if (res.status !== 200) throw new RoostError('UPSTREAM_ERROR', `the OSV API answered HTTP ${res.status} for ${id}`);
    records.push(res.body as OsvRecord);
  }
  return records;
}
