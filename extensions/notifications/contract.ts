// The notifications extension's contract with its callers: the chat bridges and the code host pass on
// an owner question answered in chat (notifications owns questions). It imports nothing of
// notifications' own code; notifications types its handler with it.
import type { HostClient } from '../../sdk/host-client.js';
import { callRoute } from '../../sdk/route-call.js';

export const NOTIFICATIONS_ROUTES = {
  /** 200 {accepted: true}, or 409 when the question is already closed. */
  answerQuestion: 'POST /api/internal/owner-questions/:id/answer',
} as const;

/** An owner question's `status`. */
export type QuestionStatus = 'pending' | 'answered' | 'expired';

export interface AnswerQuestionRequest {
  answer: string;
  /** The channel it came through: slack, telegram, discord, chainchat, codehost… */
  channel: string;
  responder?: string;
}

export interface AnswerOutcome {
  accepted: boolean;
  /** Settled: accepted, or the question is closed. False: recording it failed; the buttons stay for another try. */
  final: boolean;
  /** What to show in chat. */
  text: string;
}

/** Passes an answer given in chat to the question's owner, and says what to show in chat. */
export async function answerOwnerQuestion(host: HostClient, tenantId: string, questionId: string, answer: string, channel: string, responder?: string): Promise<AnswerOutcome> {
  let reply: { status: number; body: { error?: string; code?: string } | null };
  try {
    const request: AnswerQuestionRequest = { answer, channel, ...(responder ? { responder } : {}) };
    reply = await callRoute(host, NOTIFICATIONS_ROUTES.answerQuestion, { params: { id: questionId }, body: request }, { tenantId });
  } catch (err) {
    return { accepted: false, final: false, text: `The answer could not be recorded: ${(err as Error).message}` };
  }
  if (reply.status === 200) return { accepted: true, final: true, text: `Answered: ${answer}${responder ? ` (by ${responder})` : ''}` };
  if (reply.status === 409) return { accepted: false, final: true, text: `This question is already closed: ${reply.body?.error ?? 'answered elsewhere'}` };
  if (reply.body?.code === 'ROUTE_NOT_FOUND') return { accepted: false, final: false, text: 'The answer could not be recorded: the notifications extension is not loaded.' };
  return { accepted: false, final: false, text: `The answer could not be recorded: ${reply.body?.error ?? `status ${reply.status}`}` };
}
