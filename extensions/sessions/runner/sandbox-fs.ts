// The file tools' worker inside a session's sandbox: reads {name, input, protectedFiles} on stdin,
// runs the tool on the working directory (its cwd) exactly as the runner would, and prints
// {text, isError}. Whatever the sandbox forbids (a folder mounted read-only) fails here, not outside.
import { RoostError } from '../../../protocol/errors.js';
import { runFsTool } from './fs-tools.js';
import { Workspace } from './workspace.js';

async function main(): Promise<void> {
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
  const { name, input, protectedFiles } = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { name: string; input: Record<string, unknown>; protectedFiles: string[] };
  try {
    const ws = await Workspace.open(process.cwd(), protectedFiles);
    process.stdout.write(JSON.stringify({ text: await runFsTool(ws, name, input), isError: false }));
  } catch (err) {
    const text = err instanceof RoostError && err.code !== 'INTERNAL' ? err.message : `${name} failed: ${err instanceof Error ? err.message : String(err)}`;
    process.stdout.write(JSON.stringify({ text, isError: true }));
  }
}

void main();
