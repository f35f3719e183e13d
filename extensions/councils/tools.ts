// svc_launch_council: an agent convenes a council of its tenant; it gets the launch id at once, or with
// wait=true the final answer and the votes once the launch ends (or where it stands when time runs out).
import { validate } from '../../protocol/validate.js';
import type { ExtensionContext, ToolHandler } from '../../sdk/extension.js';
import { ACTIVE_STAGES, LaunchStore } from './launch-store.js';
import { launchCouncil, launchDetail } from './launching.js';
import type { LaunchRunner } from './runner.js';
import { schema } from './routes-councils.js';

const text = (value: unknown, isError = false) => ({ content: [{ type: 'text' as const, text: JSON.stringify(value) }], ...(isError ? { isError } : {}) });
const DEFAULT_WAIT_SECONDS = 300;

async function until(ctx: ExtensionContext, tenantId: string, id: string, timeoutMs: number) {
  const store = new LaunchStore(ctx.db, ctx.sql);
  const deadline = Date.now() + timeoutMs;
  for (let delay = 50; ; delay = Math.min(delay * 2, 500)) {
    const launch = (await store.get(tenantId, id))!;
    if (!ACTIVE_STAGES.includes(launch.stage) || launch.stageState === 'waiting' || Date.now() + delay > deadline) return launch;
    await new Promise((resolve) => setTimeout(resolve, delay));
  }
}

export const tools: Record<string, ToolHandler<LaunchRunner>> = {
  async svc_launch_council(args, caller, ctx, runner) {
    const input = validate<{ council_id: string; prompt: string; wait?: boolean; timeout_seconds?: number }>(schema(ctx, 'tool-launch-council.json'), args, 'arguments');
    const as = { tenantId: caller.tenantId };
    const launch = await launchCouncil(ctx, runner, as, caller.tenantId, input.council_id, { prompt: input.prompt });
    ctx.host.audit('council.launched_by_agent', `council-launch:${launch.id}`, { councilId: input.council_id, agentId: caller.agentId });
    if (!input.wait) return text({ launchId: launch.id, stage: launch.stage });
    const ended = await until(ctx, caller.tenantId, launch.id, (input.timeout_seconds ?? DEFAULT_WAIT_SECONDS) * 1000);
    const { id, stage, stageState, result, error, votes, voteBreakdown } = await launchDetail(ctx, ended);
    return text({ launchId: id, stage, stageState, result, error, votes, voteBreakdown }, stage === 'failed');
  },
};
