// The tools /mcp offers: each loaded extension's declared tools (the first declaration of a name wins).
// Apart from sdk-server.ts so that the kernel's mcp_tools answer does not load the MCP SDK at start-up.
import type { ToolDecl } from '../host/manifest.js';
import type { Kernel } from '../kernel.js';

/** What this module uses of the kernel. */
export type ToolListDeps = Pick<Kernel, 'registry'>;

export interface ToolEntry {
  owner: string;
  decl: ToolDecl;
}

export function tools(k: ToolListDeps): Map<string, ToolEntry> {
  const out = new Map<string, ToolEntry>();
  for (const ext of k.registry.list()) {
    if (ext.state === 'unloaded' || ext.state === 'failed') continue;
    for (const decl of ext.manifest.server?.tools ?? []) if (!out.has(decl.name)) out.set(decl.name, { owner: ext.manifest.name, decl });
  }
  return out;
}

/** What tools/list answers: the same for every caller (a privileged tool is refused when called). */
export function listedTools(k: ToolListDeps): Array<{ name: string; description: string; inputSchema: { type: 'object'; [key: string]: unknown } }> {
  return [...tools(k).values()].map(({ decl }) => ({
    name: decl.name,
    description: decl.privileged ? `${decl.description} (privileged: needs a grant in mcp_tool_permissions)` : decl.description,
    inputSchema: { type: 'object', ...decl.inputSchema } as { type: 'object'; [key: string]: unknown },
  }));
}
