// A new runner's system prompt carries the tenant's recent outcomes when its agent opted in
// (PUT /api/agents/:id/feedback-settings): the feedback extension answers the text through its
// contract, empty otherwise. Without the feedback extension, or when it cannot answer, the session
// goes on without it.
import type { CallAs, HostClient } from '../../sdk/host-client.js';
import { FeedbackClient } from '../feedback/contract.js';

export async function withOutcomes(host: HostClient, as: CallAs, agentId: string, systemPrompt: Promise<string>): Promise<string> {
  const [prompt, text] = await Promise.all([systemPrompt, outcomeText(host, as, agentId)]);
  if (!text) return prompt;
  const section = `## Recent outcomes\n${text}`;
  return prompt ? `${prompt}\n\n${section}` : section;
}

async function outcomeText(host: HostClient, as: CallAs, agentId: string): Promise<string> {
  try {
    const reply = await new FeedbackClient(host).promptContext(agentId, as);
    if (reply.status === 200 && typeof reply.body?.text === 'string') return reply.body.text;
    if (reply.body?.code !== 'ROUTE_NOT_FOUND') host.log('warn', `outcome context left out of a session: the feedback extension answered ${reply.status} ${reply.body?.code ?? ''}`);
  } catch (err) {
    host.log('warn', `outcome context left out of a session: ${err instanceof Error ? err.message : String(err)}`);
  }
  return '';
}
