// A comment on the code host that mentions an agent (@name): from a user on the tenant's allowlist, on
// a repository that is not blocked, it starts a session of that agent; a comment "/answer <text>" on an
// issue carrying an owner question answers it instead. Webhooks and mention polling both come here.
import { deliverPrompt } from '../sessions/contract-reply.js';
import { resolveAgent } from '../agents/contract.js';
import type { ExtensionContext } from '../../sdk/extension.js';
import { answerFromComment } from './channel.js';
import { Lists, REPO } from './lists.js';
import type { Deliverer } from './deliveries.js';

const MENTION = /(?:^|[^\w@])@([A-Za-z0-9][\w.-]{0,99})/g;

export interface Mention {
  repo: string;
  sender: string;
  text: string;
  /** Where it was said: "owner/name#7". */
  where: string;
  url: string;
}

export type MentionOutcome =
  | { action: 'session_started'; sessionId: string; agentId: string }
  | { action: 'question_answered' | 'answer_refused'; questionId: string; reason?: string }
  | { action: 'ignored'; reason: string };

export async function handleMention(ctx: ExtensionContext, deliverer: Deliverer, tenantId: string, mention: Mention): Promise<MentionOutcome> {
  const lists = new Lists(ctx.db);
  if (!mention.sender || !(await lists.allowed(tenantId, mention.sender))) return { action: 'ignored', reason: `${mention.sender || 'the sender'} is not on the code-host allowlist` };
  if (!REPO.test(mention.repo) || (await lists.blockedBy(tenantId, mention.repo))) return { action: 'ignored', reason: `repository ${mention.repo} is blocked or unnamed` };
  // "/answer <text>" on an issue that carries an owner question (channel.ts) answers it.
  const issue = Number(/#(\d+)$/.exec(mention.where)?.[1]);
  const answered = Number.isSafeInteger(issue) ? await answerFromComment(ctx, tenantId, mention.repo, issue, mention.text, mention.sender) : undefined;
  if (answered) return answered;
  const as = { tenantId };
  for (const [, name] of mention.text.matchAll(MENTION)) {
    const agent = await resolveAgent(ctx.host, as, name!).catch(() => undefined);
    if (!agent) continue;
    const prompt = `${mention.sender} mentioned you on ${mention.where} (${mention.url}):\n\n${mention.text}`;
    const sent = await deliverPrompt(ctx.host, as, { agentId: agent.id, prompt, session: { source: 'agent', name: `${mention.where} mention`.slice(0, 200) } });
    ctx.host.audit('codehost.mention_session', `session:${sent.sessionId}`, { repo: mention.repo, sender: mention.sender, agentId: agent.id });
    await deliverer.publish(tenantId, 'mention.session_started', mention.repo, { ...mention, agentId: agent.id, sessionId: sent.sessionId });
    return { action: 'session_started', sessionId: sent.sessionId, agentId: agent.id };
  }
  return { action: 'ignored', reason: 'no agent of this tenant is mentioned' };
}
