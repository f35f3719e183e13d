// File tools for the agent: read_file, list_dir, write_file, edit_file — all through the Workspace,
// so they stay inside the working directory and never write a protected file.
import { mkdir, readdir, readFile, stat, writeFile } from 'node:fs/promises';
import { dirname } from 'node:path';
import { toolError, type Workspace } from './workspace.js';

const MAX_READ_BYTES = 256 * 1024;
const MAX_WRITE_BYTES = 4 * 1024 * 1024;
const MAX_ENTRIES = 1_000;

export async function runFsTool(ws: Workspace, name: string, input: Record<string, any>): Promise<string> {
  switch (name) {
    case 'read_file':
      return readText(ws, input.path, input.offset, input.limit);
    case 'list_dir':
      return listDir(ws, input.path ?? '.');
    case 'write_file':
      return writeText(ws, input.path, input.content);
    case 'edit_file':
      return editText(ws, input.path, input.old_string, input.new_string, input.replace_all === true);
    default:
      throw toolError(`unknown file tool ${name}`);
  }
}

async function readText(ws: Workspace, path: string, offset?: number, limit?: number): Promise<string> {
  const real = await ws.resolveExisting(path);
  const info = await stat(real);
  if (info.isDirectory()) throw toolError(`${path} is a directory: use list_dir`);
  if (info.size > MAX_READ_BYTES && offset === undefined && limit === undefined) {
    throw toolError(`${path} is ${info.size} bytes; read it in parts with offset and limit`);
  }
  const text = await readFile(real, 'utf8');
  if (offset === undefined && limit === undefined) return text;
  const lines = text.split('\n');
  const start = (offset ?? 1) - 1;
  return lines.slice(start, limit === undefined ? undefined : start + limit).join('\n').slice(0, MAX_READ_BYTES);
}

async function listDir(ws: Workspace, path: string): Promise<string> {
  const real = await ws.resolveExisting(path);
  const entries = await readdir(real, { withFileTypes: true }).catch(() => {
    throw toolError(`${path} is not a readable directory`);
  });
  const names = entries.map((e) => (e.isDirectory() ? `${e.name}/` : e.name)).sort();
  const shown = names.slice(0, MAX_ENTRIES);
  const more = names.length > shown.length ? `\n… and ${names.length - shown.length} more` : '';
  return shown.length === 0 ? `${ws.display(real)} is empty` : shown.join('\n') + more;
}

async function writeText(ws: Workspace, path: string, content: string): Promise<string> {
  if (Buffer.byteLength(content) > MAX_WRITE_BYTES) throw toolError(`content is larger than ${MAX_WRITE_BYTES} bytes`);
  const target = await ws.resolveWritable(path);
  await mkdir(dirname(target), { recursive: true });
  await writeFile(target, content, 'utf8');
  return `wrote ${Buffer.byteLength(content)} bytes to ${ws.display(target)}`;
}

async function editText(ws: Workspace, path: string, oldString: string, newString: string, all: boolean): Promise<string> {
  const target = await ws.resolveWritable(path);
  const text = await readFile(target, 'utf8').catch(() => {
    throw toolError(`${path} does not exist: use write_file to create it`);
  });
  const count = text.split(oldString).length - 1;
  if (count === 0) throw toolError(`old_string was not found in ${path}`);
  if (count > 1 && !all) throw toolError(`old_string occurs ${count} times in ${path}; give more context or set replace_all`);
  const next = all ? text.split(oldString).join(newString) : text.replace(oldString, () => newString);
  if (Buffer.byteLength(next) > MAX_WRITE_BYTES) throw toolError(`the edited file would be larger than ${MAX_WRITE_BYTES} bytes`);
  await writeFile(target, next, 'utf8');
  return `replaced ${all ? count : 1} occurrence${(all ? count : 1) === 1 ? '' : 's'} in ${ws.display(target)}`;
}
