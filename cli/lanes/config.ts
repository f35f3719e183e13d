// Reads lanes.toml at the project root and the lanes imported under .roost/lanes/<org>/<repo>/,
// validated against schemas/lanes.json. Local lanes win a name clash; among imports, the first in
// alphabetical order wins.
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { parse } from 'smol-toml';
import { RoostError } from '../../protocol/errors.js';
import { describeErrors, schemaValidator } from '../../protocol/validate.js';

export interface RunStepDef {
  run: string;
  name?: string;
  when?: string;
  timeout?: number;
  retries?: number;
}
export interface ParallelStepDef {
  parallel: Array<string | RunStepDef>;
  name?: string;
  when?: string;
}
export type StepDef = string | RunStepDef | ParallelStepDef;

export interface LaneDef {
  name: string;
  description: string;
  steps: StepDef[];
  failFast: boolean;
  /** "local", or the <org>/<repo> it was imported from. */
  source: string;
  file: string;
}

export interface LaneSet {
  lanes: Map<string, LaneDef>;
  /** Lanes hidden by a lane of the same name from a source that wins. */
  shadowed: Array<{ name: string; source: string; by: string }>;
}

interface LanesFile {
  lanes: Record<string, { description?: string; steps: StepDef[]; fail_fast?: boolean }>;
}

export const IMPORTS_DIR = join('.roost', 'lanes');
/** A lanes file is a short list of pipelines; anything bigger is a mistake, not a config. */
export const MAX_LANES_FILE_BYTES = 1024 * 1024;

export function loadLanes(root: string): LaneSet {
  const set: LaneSet = { lanes: new Map(), shadowed: [] };
  const local = join(root, 'lanes.toml');
  if (existsSync(local)) addLanes(set, readLanesFile(local, root), 'local', local);
  for (const source of importedSources(root)) {
    const file = join(root, IMPORTS_DIR, source, 'lanes.toml');
    if (existsSync(file)) addLanes(set, readLanesFile(file, root), source, file);
  }
  return set;
}

/** <org>/<repo> of every imported lanes repository, sorted. */
export function importedSources(root: string): string[] {
  const dir = join(root, IMPORTS_DIR);
  if (!existsSync(dir)) return [];
  return subdirs(dir).flatMap((org) => subdirs(join(dir, org)).map((repo) => `${org}/${repo}`)).sort();
}

/** Parses and validates one lanes.toml; errors name the file and the field. */
export function readLanesFile(file: string, root: string): LanesFile {
  const shown = relative(root, file) || file;
  if (statSync(file).size > MAX_LANES_FILE_BYTES) {
    throw new RoostError('PAYLOAD_TOO_LARGE', `${shown}: larger than ${MAX_LANES_FILE_BYTES / 1024 / 1024} MiB`);
  }
  let data: unknown;
  try {
    data = parse(readFileSync(file, 'utf8'));
  } catch (err) {
    const { line, column } = err as { line?: number; column?: number };
    const where = line === undefined ? '' : ` (line ${line}, column ${column})`;
    throw new RoostError('VALIDATION_ERROR', `${shown}: ${(err as Error).message.split('\n')[0]}${where}`);
  }
  const check = schemaValidator('lanes.json');
  if (!check(data)) {
    // if/then/else adds a generic "must match then schema" beside the specific error; keep the specific one.
    const errors = (check.errors ?? []).filter((e) => e.keyword !== 'if');
    throw new RoostError('VALIDATION_ERROR', `${shown}: ${describeErrors(errors, '').replace(/^\./, '').replace(/; \./g, '; ')}`, { details: errors });
  }
  return data as LanesFile;
}

function addLanes(set: LaneSet, file: LanesFile, source: string, path: string): void {
  for (const [name, lane] of Object.entries(file.lanes)) {
    const existing = set.lanes.get(name);
    if (existing) {
      set.shadowed.push({ name, source, by: existing.source });
      continue;
    }
    set.lanes.set(name, {
      name, description: lane.description ?? '', steps: lane.steps, failFast: lane.fail_fast ?? true, source, file: path,
    });
  }
}

function subdirs(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).filter((d) => d.isDirectory() && !d.name.startsWith('.')).map((d) => d.name);
}
