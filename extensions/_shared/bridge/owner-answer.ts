// An owner question answered in chat is passed to the notifications extension, which owns questions:
// POST /api/internal/owner-questions/:id/answer → 200 {accepted: true}, or 409 when it is already closed.
import type { HostClient } from '../host-client.js';

export interface AnswerOutcome {
  accepted: boolean;
  /** Settled: accepted, or the question is closed. False: recording it failed; the buttons stay for another try. */
  final: boolean;
  /** What to show in chat. */
  text: string;
}

export async function answerOwnerQuestion(host: HostClient, tenantId: string, questionId: string, answer: string, channel: string, responder?: string): Promise<AnswerOutcome> {
  let reply: { status: number; body: { error?: string; code?: string } | null };
  try {
    reply = await host.call('POST', `/api/internal/owner-questions/${encodeURIComponent(questionId)}/answer`, { answer, channel, ...(responder ? { responder } : {}) }, { tenantId });
  } catch (err) {
    return { accepted: false, final: false, text: `The answer could not be recorded: ${(err as Error).message}` };
  }
  if (reply.status === 200) return { accepted: true, final: true, text: `Answered: ${answer}${responder ? ` (by ${responder})` : ''}` };
  if (reply.status === 409) return { accepted: false, final: true, text: `This question is already closed: ${reply.body?.error ?? 'answered elsewhere'}` };
  if (reply.body?.code === 'ROUTE_NOT_FOUND') return { accepted: false, final: false, text: 'The answer could not be recorded: the notifications extension is not loaded.' };
  return { accepted: false, final: false, text: `The answer could not be recorded: ${reply.body?.error ?? `status ${reply.status}`}` };
}
