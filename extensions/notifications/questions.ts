// Owner questions: a blocking question, its options, and the first answer (or its expiry). The answer
// is written by a conditional update on a pending, unexpired row, so of two answers on two channels
// exactly one wins, whichever instance receives it.
import { randomUUID } from 'node:crypto';
import type { Knex } from 'knex';
import type { QuestionStatus } from './contract.js';

export type { QuestionStatus };

export interface Question {
  id: string;
  tenantId: string;
  agentId: string | null;
  sessionId: string | null;
  question: string;
  options: string[];
  status: QuestionStatus;
  answer: string | null;
  answeredVia: string | null;
  responder: string | null;
  createdAt: string;
  expiresAt: string;
  answeredAt: string | null;
}

interface Row {
  id: string;
  tenant_id: string;
  agent_id: string | null;
  session_id: string | null;
  question: string;
  options: string;
  status: QuestionStatus;
  answer: string | null;
  answered_via: string | null;
  responder: string | null;
  created_at: string;
  expires_at: string;
  answered_at: string | null;
}

export class QuestionStore {
  constructor(private readonly db: Knex) {}

  async create(input: { tenantId: string; agentId: string | null; sessionId: string | null; question: string; options: string[]; timeoutMs: number }): Promise<Question> {
    const now = new Date();
    const row: Row = {
      id: randomUUID(),
      tenant_id: input.tenantId,
      agent_id: input.agentId,
      session_id: input.sessionId,
      question: input.question,
      options: JSON.stringify(input.options),
      status: 'pending',
      answer: null,
      answered_via: null,
      responder: null,
      created_at: now.toISOString(),
      expires_at: new Date(now.getTime() + input.timeoutMs).toISOString(),
      answered_at: null,
    };
    await this.db('questions').insert(row);
    return toQuestion(row);
  }

  async get(tenantId: string, id: string): Promise<Question | undefined> {
    const row = await this.db<Row>('questions').where({ tenant_id: tenantId, id }).first();
    return row ? toQuestion(row) : undefined;
  }

  /**
   * The same session asking the same question again while it is still open (its call was cut, by a
   * restart say): the one to wait on. An answered question is never reused: asking again asks the owner.
   */
  async reusable(tenantId: string, sessionId: string, question: string, now: Date): Promise<Question | undefined> {
    const row = await this.db<Row>('questions')
      .where({ tenant_id: tenantId, session_id: sessionId, question, status: 'pending' })
      .andWhere('expires_at', '>', now.toISOString())
      .orderBy('created_at', 'desc')
      .first();
    return row ? toQuestion(row) : undefined;
  }

  async list(tenantId: string, filter: { status?: QuestionStatus; limit: number; offset: number }): Promise<Question[]> {
    const q = this.db<Row>('questions').where({ tenant_id: tenantId });
    if (filter.status) q.andWhere({ status: filter.status });
    return (await q.orderBy('created_at', 'desc').orderBy('id').limit(filter.limit).offset(filter.offset)).map(toQuestion);
  }

  /** True when this answer won; false when the question was already answered, expired or past its time. */
  async answer(tenantId: string, id: string, answer: string, via: string, responder: string | null, now: Date): Promise<boolean> {
    const n = await this.db('questions')
      .where({ tenant_id: tenantId, id, status: 'pending' })
      .andWhere('expires_at', '>', now.toISOString())
      .update({ status: 'answered', answer, answered_via: via, responder, answered_at: now.toISOString() });
    return n > 0;
  }

  /** Marks one question expired (when its time is up); true when this call did it. */
  async expire(id: string, now: Date): Promise<boolean> {
    return (await this.db('questions').where({ id, status: 'pending' }).andWhere('expires_at', '<=', now.toISOString()).update({ status: 'expired', answered_at: now.toISOString() })) > 0;
  }

  async overdue(now: Date): Promise<Question[]> {
    return (await this.db<Row>('questions').where({ status: 'pending' }).andWhere('expires_at', '<=', now.toISOString()).limit(100)).map(toQuestion);
  }

  async hasPending(): Promise<boolean> {
    return (await this.db('questions').where({ status: 'pending' }).first('id')) !== undefined;
  }
}

function toQuestion(row: Row): Question {
  return {
    id: row.id,
    tenantId: row.tenant_id,
    agentId: row.agent_id,
    sessionId: row.session_id,
    question: row.question,
    options: JSON.parse(row.options),
    status: row.status,
    answer: row.answer,
    answeredVia: row.answered_via,
    responder: row.responder,
    createdAt: row.created_at,
    expiresAt: row.expires_at,
    answeredAt: row.answered_at,
  };
}
