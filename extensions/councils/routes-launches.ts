// /api/council-launches: reading launches and their events, and the operations that move a launch.
import { conflict, notFound, toRoostError, validationError } from '../../protocol/errors.js';
import { validate } from '../../protocol/validate.js';
import { askAgent, type AgentReply, type AskInput } from '../sessions/contract-reply.js';
import type { CallAs, HostClient } from '../../sdk/host-client.js';
import type { ExtensionContext, RouteHandler, RouteRequest } from '../../sdk/extension.js';
import { ok, page, queryString } from '../../sdk/http.js';
import { EventLog } from './event-log.js';
import { LaunchStore, type Launch } from './launch-store.js';
import { launchDetail, launchView } from './launching.js';
import { schema } from './routes-councils.js';
import type { LaunchRunner } from './runner.js';
import { COUNCILS_ROUTES } from './contract.js';
import { sessionsClient } from '../sessions/contract.js';

/** How long a chat question waits for the synthesizer at most (the manifest's timeout_ms leaves a margin above it). */
const CHAT_WAIT_MAX_SECONDS = 570;

async function mustGet(ctx: ExtensionContext, req: RouteRequest): Promise<Launch> {
  const launch = await new LaunchStore(ctx.db, ctx.sql).get(req.auth.tenantId, req.params.id!);
  if (!launch) throw notFound(`council launch ${req.params.id}`);
  return launch;
}

/** Operations without a body take none (an empty object or nothing at all). */
const noBody = (ctx: ExtensionContext, req: RouteRequest) => validate(schema(ctx, 'no-body.json'), req.body ?? {});

function afterOf(req: RouteRequest): number {
  const raw = queryString(req.query, 'after');
  if (raw === undefined || raw === '') return 0;
  const n = Number(raw);
  if (!Number.isSafeInteger(n) || n < 0) throw validationError('query.after must be a non-negative integer (an event seq)');
  return n;
}

/** The replay reads in pages of 500, more than a REST list's limit. */
const REPLAY_LIMIT = 1000;

async function events(ctx: ExtensionContext, req: RouteRequest, which: 'logs' | 'messages' | 'all') {
  const launch = await mustGet(ctx, req);
  const paging = which === 'all' ? replayPage(req) : { after: afterOf(req), ...page(req.query) };
  return new EventLog(ctx).list(launch.id, which, paging);
}

function replayPage(req: RouteRequest): { after: number; limit: number; offset: number } {
  const limit = Number(queryString(req.query, 'limit') ?? REPLAY_LIMIT);
  if (!Number.isInteger(limit) || limit < 1 || limit > REPLAY_LIMIT) throw validationError(`query.limit must be an integer from 1 to ${REPLAY_LIMIT}`);
  return { after: afterOf(req), limit, offset: 0 };
}

export const launchRoutes: Record<string, RouteHandler<LaunchRunner>> = {
  async 'GET /api/council-launches'(req, ctx) {
    const councilId = queryString(req.query, 'councilId');
    const { launches: list, ...rest } = await new LaunchStore(ctx.db, ctx.sql).list(req.auth.tenantId, councilId ? { councilId } : {}, page(req.query));
    return ok({ launches: list.map(launchView), ...rest });
  },

  async [COUNCILS_ROUTES.launchRecord](req, ctx) {
    return ok(await launchDetail(ctx, await mustGet(ctx, req)));
  },

  async 'GET /api/council-launches/:id/logs'(req, ctx) {
    const { events: logs, hasMore } = await events(ctx, req, 'logs');
    return ok({ logs, hasMore });
  },

  async [COUNCILS_ROUTES.discussion](req, ctx) {
    const { events: messages, hasMore } = await events(ctx, req, 'messages');
    return ok({ messages, hasMore });
  },

  /** The replay of the WebSocket stream: every event after `after`, as it was sent live. */
  async 'GET /api/internal/council-launches/:id/stream'(req, ctx) {
    const { events: messages, hasMore } = await events(ctx, req, 'all');
    return ok({ messages, hasMore });
  },

  async [COUNCILS_ROUTES.abort](req, ctx, runner) {
    noBody(ctx, req);
    return ok(launchView(await runner.abort(req.auth.tenantId, req.params.id!)));
  },

  async 'POST /api/council-launches/:id/review'(req, ctx, runner) {
    noBody(ctx, req);
    return ok(launchView(await runner.advance(req.auth.tenantId, req.params.id!, 'reviewing')));
  },

  async 'POST /api/council-launches/:id/synthesize'(req, ctx, runner) {
    noBody(ctx, req);
    return ok(launchView(await runner.advance(req.auth.tenantId, req.params.id!, 'synthesizing')));
  },

  /** A follow-up question to the synthesizer, in its own session: it remembers the whole deliberation. */
  async 'POST /api/council-launches/:id/chat'(req, ctx) {
    const { message } = validate<{ message: string }>(schema(ctx, 'chat.json'), req.body);
    const launch = await mustGet(ctx, req);
    if (launch.stage !== 'completed' || !launch.synthesizerId || !launch.synthesisSessionId) {
      throw conflict(`launch ${launch.id} is in stage ${launch.stage}; chat needs a completed launch`);
    }
    const log = new EventLog(ctx);
    const question = await log.append(launch, { type: 'discussion_message', stage: 'completed', kind: 'chat_question', agentId: null, round: 0, content: message });
    const reply = await askResuming(ctx.host, { requestId: req.id }, {
      agentId: launch.synthesizerId, sessionId: launch.synthesisSessionId, prompt: message, timeoutMs: Math.min(launch.config.memberTimeoutSeconds, CHAT_WAIT_MAX_SECONDS) * 1000,
    });
    const answer = await log.append(launch, { type: 'discussion_message', stage: 'completed', kind: 'chat_answer', agentId: launch.synthesizerId, round: 0, content: reply.text });
    return ok({ reply: reply.text, question, answer });
  },
};

/** Asks in the synthesizer's session; one that ended meanwhile (its time ran out) is resumed first. */
async function askResuming(host: HostClient, as: CallAs, input: AskInput & { sessionId: string }): Promise<AgentReply> {
  try {
    return await askAgent(host, as, input);
  } catch (err) {
    if (toRoostError(err).code !== 'CONFLICT') throw err;
    const resumed = await sessionsClient(host, as).resume(input.sessionId);
    if (resumed.status !== 200) throw err;
    return askAgent(host, as, input);
  }
}
