// What a session reads from other extensions, through the kernel: the agent (as the agents extension
// composes it for a run: record, persona and skills folded into one system prompt) and the project.
import { notFound, RoostError } from '../../protocol/errors.js';
import { upstreamError, type CallAs, type HostClient } from '../../sdk/host-client.js';
import { routePath } from '../../sdk/route-call.js';
import type { DriverName } from '../../lib/providers/index.js';
import type { SandboxGrant } from '../../lib/session-sandbox.js';
import { projectPath, ProjectsClient } from '../projects/contract.js';
import { SandboxClient } from '../sandbox/contract.js';
import { AGENTS_ROUTES } from '../agents/contract.js';

export const PERMISSION_MODES = ['default', 'acceptEdits', 'full-auto', 'plan'] as const;
export type PermissionMode = (typeof PERMISSION_MODES)[number];

export interface AgentSpec {
  id: string;
  name: string;
  provider: DriverName;
  model: string;
  systemPrompt: string;
  permissionMode: PermissionMode;
  mcpToolPermissions: string[];
  /** The tools its skill bundles name (the agent's, then the project's): skill-tools.ts. */
  skillTools: string[];
}

export interface ProjectSpec {
  id: string;
  workingDir: string;
  env: Record<string, string>;
}

/** The agent as it runs in a project (its skills and the project's, in that order), or without one. */
export async function agentSpec(host: HostClient, as: CallAs, agentId: string, projectId: string | null = null): Promise<AgentSpec> {
  const projectBundles = projectId ? await projectSkills(host, as, projectId) : [];
  const body = await fetchRecord(host, as, routePath(AGENTS_ROUTES.runtime, { id: agentId }, { projectBundles: projectBundles.length > 0 ? projectBundles.join(',') : undefined }).path, `agent ${agentId}`, 'agents');
  const agent = body.agent as Record<string, unknown>;
  const mode = PERMISSION_MODES.includes(agent.permissionMode as PermissionMode) ? (agent.permissionMode as PermissionMode) : 'default';
  return {
    id: String(agent.id),
    name: String(agent.name),
    provider: agent.provider === 'ollama' || agent.provider === 'echo' ? agent.provider : 'anthropic',
    model: String(agent.model),
    systemPrompt: typeof body.systemPrompt === 'string' ? body.systemPrompt : String(agent.systemPrompt ?? ''),
    permissionMode: mode,
    mcpToolPermissions: Array.isArray(agent.mcp_tool_permissions) ? agent.mcp_tool_permissions.map(String) : [],
    skillTools: Array.isArray(body.tools) ? body.tools.map(String) : [],
  };
}

/**
 * The bundle ids assigned to the project. A project that is not there is projectSpec's to answer; a
 * projects extension that cannot answer fails the start rather than run the session without its skills.
 */
async function projectSkills(host: HostClient, as: CallAs, projectId: string): Promise<string[]> {
  const reply = await new ProjectsClient(host).skills(projectId, as);
  if (reply.status === 404 && (reply.body as { code?: string } | null)?.code === 'NOT_FOUND') return [];
  if (reply.status !== 200 || !reply.body) throw upstreamError(reply, `reading project ${projectId}'s skills`, 'projects');
  return reply.body.bundleIds;
}

export async function projectSpec(host: HostClient, as: CallAs, projectId: string): Promise<ProjectSpec> {
  const body = await fetchRecord(host, as, projectPath(projectId), `project ${projectId}`, 'projects');
  return { id: String(body.id), workingDir: String(body.workingDir), env: (body.env_vars as Record<string, string> | undefined) ?? {} };
}

/**
 * The sandbox the session's tools must run in (the sandbox extension's assignment), or null when it
 * has none or the sandbox extension is not loaded. Any other failure throws: never unsandboxed by accident.
 */
export async function sessionSandbox(host: HostClient, as: CallAs, sessionId: string): Promise<SandboxGrant | null> {
  const reply = await new SandboxClient(host).sessionGrant(sessionId, as);
  if (reply.status === 200 && reply.body) return reply.body;
  if (reply.status === 404) return null;
  const why = typeof reply.body?.error === 'string' ? reply.body.error : `status ${reply.status}`;
  throw new RoostError('EXTENSION_UNAVAILABLE', `the session's sandbox could not be checked, so the tool was not run: ${why}`);
}

async function fetchRecord(host: HostClient, as: CallAs, path: string, what: string, owner: string): Promise<Record<string, unknown>> {
  const reply = await host.call<Record<string, unknown>>('GET', path, null, as);
  if (reply.status === 200 && reply.body) return reply.body;
  if (reply.status === 404 && reply.body?.code === 'ROUTE_NOT_FOUND') {
    throw new RoostError('EXTENSION_UNAVAILABLE', `sessions need the ${owner} extension, which is not loaded`);
  }
  if (reply.status === 404 || reply.status === 403) throw notFound(what);
  throw new RoostError('EXTENSION_UNAVAILABLE', `reading ${what} failed with status ${reply.status}`);
}
