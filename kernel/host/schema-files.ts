// The JSON Schema files a manifest names (tool inputs, [server.openapi] query, request and response):
// read, with every reference to another file of the same extension ("$ref": "record-agent.json")
// replaced by that file's schema, so what the kernel holds is one self-contained schema (the OpenAPI
// document, MCP's tool list and ROOST_CHECK_RESPONSES use it as it is). Several routes can then share
// one record's schema instead of copies of it.
import { readFileSync } from 'node:fs';
import { dirname, relative, resolve } from 'node:path';
import { RoostError } from '../../protocol/errors.js';

export type Schema = Record<string, unknown>;

/** References through files may go this deep (a cycle is refused before). */
const MAX_DEPTH = 16;

/**
 * Each file's self-contained schema, by absolute path, once inlined: a manifest's schemas share record
 * files (one record may be named by twenty routes), so each is read, parsed and inlined once.
 */
export type FileCache = Map<string, { inlined: Schema; referenced?: Schema }>;

/**
 * Reads `file`; its references to other files resolve relative to it and must stay inside `root`.
 * Pass one `files` cache to the reads of one manifest so that a file many schemas refer to is read once.
 * The reads are synchronous: a few dozen small files, where a thread-pool hop per file cost start-up
 * seconds on a busy machine.
 */
export function readSchemaFile(file: string, root: string, what: string, files: FileCache = new Map()): Schema {
  return load(resolve(file), root, what, [], files);
}

function load(file: string, root: string, what: string, chain: string[], files: FileCache): Schema {
  if (chain.includes(file)) throw new RoostError('VALIDATION_ERROR', `${what} ${chain[0]}: the references through ${relative(root, file)} go round in a circle`);
  if (chain.length > MAX_DEPTH) throw new RoostError('VALIDATION_ERROR', `${what} ${chain[0]}: references go more than ${MAX_DEPTH} files deep`);
  const known = files.get(file);
  if (known) return known.inlined;
  let schema: Schema;
  try {
    schema = JSON.parse(readFileSync(file, 'utf8')) as Schema;
  } catch (err) {
    throw new RoostError('VALIDATION_ERROR', `${what} ${file} cannot be read: ${(err as Error).message}`);
  }
  const inlined = inlineFiles(schema, dirname(file), root, what, [...chain, file], files) as Schema;
  files.set(file, { inlined });
  return inlined;
}

function inlineFiles(node: unknown, dir: string, root: string, what: string, chain: string[], files: FileCache): unknown {
  if (Array.isArray(node)) return node.map((item) => inlineFiles(item, dir, root, what, chain, files));
  if (!node || typeof node !== 'object') return node;
  const ref = (node as Schema).$ref;
  if (typeof ref === 'string' && !ref.startsWith('#')) {
    const target = resolve(dir, ref);
    if (relative(root, target).startsWith('..')) throw new RoostError('VALIDATION_ERROR', `${what} ${chain[0]}: "$ref": "${ref}" leaves the extension's folder`);
    const inlined = load(target, root, what, chain, files);
    // The inlined file's own #/$defs references mean that file: resolved here, before it joins another.
    const entry = files.get(target)!;
    return (entry.referenced ??= withoutLocalRefs(inlined, (inlined.$defs ?? {}) as Record<string, Schema>) as Schema);
  }
  const out: Schema = {};
  for (const key of Object.keys(node)) out[key] = inlineFiles((node as Schema)[key], dir, root, what, chain, files);
  return out;
}

/** The schema with its `#/$defs/…` references replaced by what they name (and no $defs or $schema left). */
export function withoutLocalRefs(node: unknown, defs: Record<string, Schema>, depth = 0): unknown {
  if (Array.isArray(node)) return node.map((item) => withoutLocalRefs(item, defs, depth));
  if (!node || typeof node !== 'object') return node;
  const ref = (node as Schema).$ref;
  if (typeof ref === 'string' && ref.startsWith('#/$defs/') && depth < MAX_DEPTH) {
    const target = defs[ref.slice('#/$defs/'.length)];
    if (target) return withoutLocalRefs(target, defs, depth + 1);
  }
  return Object.fromEntries(Object.entries(node).filter(([key]) => key !== '$defs' && key !== '$schema').map(([key, value]) => [key, withoutLocalRefs(value, defs, depth)]));
}
