// What a session's skill bundles (its agent's, then its project's) say of its tools: a server MCP tool
// a bundle names (svc_…) is granted to the session as the agent's mcp_tool_permissions are; the local
// tools bundles name (the runner's names, or Claude Code's Read, LS, Write, Edit, Bash) become the only
// local tools it offers. Other names (an external server's tool) change nothing. docs/sessions.md "Skills".
const LOCAL_TOOLS: Record<string, string> = {
  read_file: 'read_file', list_dir: 'list_dir', write_file: 'write_file', edit_file: 'edit_file', run_command: 'run_command',
  Read: 'read_file', LS: 'list_dir', Write: 'write_file', Edit: 'edit_file', Bash: 'run_command',
};

export interface SkillTools {
  /** MCP tools granted beyond the agent's own permissions. */
  mcpGrants: string[];
  /** The local tools offered, when bundles name any; undefined leaves them all. */
  localTools?: string[];
}

export function skillTools(tools: string[]): SkillTools {
  const local = [...new Set(tools.flatMap((name) => LOCAL_TOOLS[name] ?? []))];
  return { mcpGrants: [...new Set(tools.filter((name) => name.startsWith('svc_')))], ...(local.length > 0 ? { localTools: local } : {}) };
}
