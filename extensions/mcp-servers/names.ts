// The names a session's model sees: mcp__<server>__<tool>, within what model APIs accept for a tool
// name (letters, digits, _ and -, at most 64 characters). Names that clash after that are numbered.

const MAX_NAME = 64;

export function namespaced(server: string, tools: string[]): Map<string, string> {
  const prefix = `mcp__${server}__`;
  const out = new Map<string, string>();
  for (const tool of tools) {
    const base = `${prefix}${tool.replace(/[^A-Za-z0-9_-]/g, '_')}`.slice(0, MAX_NAME);
    let name = base;
    for (let n = 2; out.has(name); n++) name = `${base.slice(0, MAX_NAME - String(n).length - 1)}_${n}`;
    out.set(name, tool);
  }
  return out;
}
