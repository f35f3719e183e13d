// MCP tools over projects, for agents.
import type { ToolHandler } from '../../sdk/extension.js';
import { ProjectStore } from './store.js';

const text = (value: unknown) => ({ content: [{ type: 'text' as const, text: JSON.stringify(value) }] });

export const tools: Record<string, ToolHandler> = {
  async svc_list_projects(args, caller, ctx) {
    const { projects } = await new ProjectStore(ctx.db, ctx.sql).list(caller.tenantId, { limit: 200, offset: 0, search: args.search as string | undefined });
    return text(projects.map((p) => ({ id: p.id, name: p.name, workingDir: p.workingDir })));
  },

  async svc_delete_project(args, caller, ctx) {
    const id = String(args.project_id);
    const removed = await new ProjectStore(ctx.db, ctx.sql).remove(caller.tenantId, id);
    if (removed) ctx.host.audit('project.deleted_by_agent', `project:${id}`, { agentId: caller.agentId });
    return removed ? text({ deleted: id }) : { content: [{ type: 'text', text: `project ${id} not found` }], isError: true };
  },
};
