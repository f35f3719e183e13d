// What the model is told of the file tools, and where every local tool's input schema is: JSON files of
// the sessions extension (schemas/runner-tool-*.json), so that `npm run build` precompiles their
// validators (scripts/build-validators.mjs) and no runner loads ajv to check a tool's input. (The
// sandboxed file worker runs the tools, fs-tools.ts, without these: it sees no package around it.)
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { packageRoot } from '../../../lib/paths.js';
import type { ToolSpec } from '../../../lib/providers/index.js';

/** The schema file of a local tool (read_file → schemas/runner-tool-read-file.json). */
export function toolSchemaFile(tool: string): string {
  return join(packageRoot, 'extensions', 'sessions', 'schemas', `runner-tool-${tool.replaceAll('_', '-')}.json`);
}

export function toolSchema(tool: string): Record<string, unknown> {
  return JSON.parse(readFileSync(toolSchemaFile(tool), 'utf8')) as Record<string, unknown>;
}

export const FS_TOOL_SPECS: ToolSpec[] = [
  { name: 'read_file', description: 'Read a UTF-8 text file of the working directory. Optional 1-based line offset and line limit.', inputSchema: toolSchema('read_file') },
  { name: 'list_dir', description: 'List a directory of the working directory; directories end with "/".', inputSchema: toolSchema('list_dir') },
  { name: 'write_file', description: 'Create or overwrite a text file in the working directory (parent directories are created).', inputSchema: toolSchema('write_file') },
  { name: 'edit_file', description: 'Replace an exact string in a file. old_string must occur exactly once unless replace_all is true.', inputSchema: toolSchema('edit_file') },
];
