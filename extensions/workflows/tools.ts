// svc_manage_workflow: the workflow routes' operations for agents, within the caller's tenant.
import { validationError } from '../../protocol/errors.js';
import { validate } from '../../protocol/validate.js';
import type { ToolHandler } from '../../sdk/extension.js';
import { runView } from './run-store.js';
import { schema } from './routes-workflows.js';
import type { WorkflowService } from './service.js';
import type { WorkflowInput } from './store.js';

type Args = { action: string; workflow_id?: string; run_id?: string; workflow?: Record<string, unknown>; input?: unknown; limit?: number };

const text = (value: unknown) => ({ content: [{ type: 'text' as const, text: JSON.stringify(value) }], structuredContent: value as Record<string, unknown> });

function need(args: Args, field: 'workflow_id' | 'run_id' | 'workflow'): string {
  if (args[field] === undefined) throw validationError(`action "${args.action}" needs ${field}`);
  return field === 'workflow' ? '' : String(args[field]);
}

export const workflowTools: Record<string, ToolHandler<WorkflowService>> = {
  async svc_manage_workflow(raw, caller, ctx, s) {
    const args = raw as Args;
    const tenant = caller.tenantId;
    const page = { limit: args.limit ?? 50, offset: 0 };
    switch (args.action) {
      case 'list':
        return text(await s.workflows.list(tenant, page));
      case 'get':
        return text(await s.mustGetWorkflow(tenant, need(args, 'workflow_id')));
      case 'create': {
        need(args, 'workflow');
        const input = validate<Required<Pick<WorkflowInput, 'name' | 'nodes' | 'edges'>> & WorkflowInput>(schema(ctx, 'workflow-create.json'), args.workflow);
        return text(await s.create(tenant, input));
      }
      case 'update': {
        const id = need(args, 'workflow_id');
        need(args, 'workflow');
        return text(await s.update(tenant, id, validate<WorkflowInput>(schema(ctx, 'workflow-update.json'), args.workflow)));
      }
      case 'delete': {
        const id = need(args, 'workflow_id');
        await s.remove(tenant, id);
        return text({ deleted: id });
      }
      case 'trigger':
        return text(await s.trigger(tenant, need(args, 'workflow_id'), args.input ?? null, caller.agentId ? `agent:${caller.agentId}` : 'mcp'));
      case 'runs':
        if (args.workflow_id) await s.mustGetWorkflow(tenant, args.workflow_id);
        return text(await s.runs.list(tenant, { workflowId: args.workflow_id }, page));
      case 'run_status': {
        const { run, nodeRuns } = await s.runDetail({ tenantId: tenant, role: 'viewer' }, need(args, 'run_id'));
        return text({ ...runView(run), nodeRuns });
      }
      default:
        return text(await s.act(tenant, need(args, 'run_id'), args.action as 'pause' | 'resume' | 'cancel'));
    }
  },
};
