// The code host as a notification channel (docs/vcshost.md, "As a notification channel"): the bridge
// contract's deliver route. A channel names a repository (`repo`, "owner/name") and optionally an issue
// (`issue`): a notification or an owner question becomes a comment on that issue, or a new issue when
// none is named. A question lists its options and is answered by a comment "/answer <option>" from a
// user on the tenant's code-host allowlist, when the code host tells us of comments (the webhook, for the
// instance's tenant; mention polling, for any tenant whose polling watches the repository). Closing a
// question adds a comment saying how it closed. A blocked repository is refused; the notifications
// delivery id (`key`) makes a retried delivery answer the first one's externalId instead of posting again.
// externalId: "owner/name#<issue>" (and "/<comment id>" for a comment).
import type { Knex } from 'knex';
import { RoostError, validationError } from '../../protocol/errors.js';
import { validate } from '../../protocol/validate.js';
import { deliverSchema, withPriority, type DeliverBody } from '../../sdk/bridge/contract.js';
import { answerOwnerQuestion } from '../notifications/contract.js';
import type { ExtensionContext, RouteHandler } from '../../sdk/extension.js';
import { ok } from '../../sdk/http.js';
import { hostError, octokit, ownerRepo } from './client.js';
import { Lists, normaliseRepo } from './lists.js';

const DELIVER = deliverSchema('codehost');
const ANSWER = /^\/answer\s+([\s\S]+)$/i;
const POST_TIMEOUT_MS = 15_000;

export const channelRoutes: Record<string, RouteHandler> = {
  async 'POST /api/internal/bridges/codehost/deliver'(req, ctx) {
    const body = validate<DeliverBody>(DELIVER, req.body);
    const tenantId = req.auth.tenantId;
    const key = body.key ? `${tenantId}:${body.key}` : undefined;
    const done = key ? await ctx.db('channel_deliveries').where({ delivery_key: key }).first('external_id') : undefined;
    if (done) return ok({ externalId: done.external_id });
    const { repo, issue } = target(body);
    const blocked = await new Lists(ctx.db).blockedBy(tenantId, repo);
    if (blocked) throw new RoostError('FORBIDDEN', `repository ${repo} is on the tenant's blocklist (${blocked}): nothing is posted there`);
    const externalId = await post(ctx, tenantId, repo, issue, body);
    if (key) await ctx.db('channel_deliveries').insert({ delivery_key: key, external_id: externalId, created_at: new Date().toISOString() }).onConflict('delivery_key').ignore();
    return ok({ externalId });
  },
};

function target(body: DeliverBody): { repo: string; issue: number | undefined } {
  if (typeof body.channel.repo !== 'string') throw validationError('body.channel.repo is required: the repository ("owner/name") to post to');
  const repo = normaliseRepo(body.channel.repo);
  if (repo.endsWith('/*')) throw validationError('body.channel.repo must name one repository, not "owner/*"');
  const raw = body.kind === 'question_closed' ? /#(\d+)/.exec(body.reference ?? '')?.[1] : body.channel.issue;
  const issue = raw === undefined || raw === '' ? undefined : Number(raw);
  if (issue !== undefined && (!Number.isSafeInteger(issue) || issue < 1)) throw validationError('body.channel.issue must be an issue number');
  if (body.kind === 'question_closed' && issue === undefined) throw validationError('body.reference must be a code-host externalId ("owner/name#<issue>")');
  return { repo, issue };
}

async function post(ctx: ExtensionContext, tenantId: string, repo: string, issue: number | undefined, body: DeliverBody): Promise<string> {
  const text = body.kind === 'question'
    ? `**Question from your agent:** ${body.text}\n\n${body.question!.options.length ? `Options: ${body.question!.options.map((o) => `\`${o}\``).join(', ')}\n\n` : ''}Answer with a comment \`/answer <your answer>\`.`
    : body.kind === 'question_closed' ? `Closed: ${body.text}` : withPriority(body);
  try {
    // Well inside the kernel's call timeout: a hung code host fails this attempt, never outlives it.
    const where = { ...ownerRepo(repo), request: { signal: AbortSignal.timeout(POST_TIMEOUT_MS) } };
    let number = issue;
    let externalId: string;
    if (number === undefined) {
      const { data } = await octokit(ctx).issues.create({ ...where, title: body.text.split('\n')[0]!.slice(0, 120), body: text });
      number = data.number;
      externalId = `${repo}#${number}`;
    } else {
      const { data } = await octokit(ctx).issues.createComment({ ...where, issue_number: number, body: text });
      externalId = `${repo}#${number}/${data.id}`;
    }
    if (body.kind === 'question') await rememberQuestion(ctx.db, tenantId, repo, number, body.question!);
    if (body.kind === 'question_closed') await ctx.db('question_prompts').where({ tenant_id: tenantId, repo, issue_number: number }).update({ closed_at: new Date().toISOString() });
    return externalId;
  } catch (err) {
    throw hostError(err, `posting to ${repo}`);
  }
}

async function rememberQuestion(db: Knex, tenantId: string, repo: string, issue: number, question: { id: string; options: string[] }): Promise<void> {
  await db('question_prompts').insert({ tenant_id: tenantId, repo, issue_number: issue, question_id: question.id, options: JSON.stringify(question.options), created_at: new Date().toISOString() }).onConflict(['tenant_id', 'repo', 'issue_number', 'question_id']).ignore();
}

/**
 * A comment "/answer <text>" on an issue that carries an open question of the tenant answers it (the
 * caller checked the sender is on the tenant's allowlist). Undefined when the comment is no such answer.
 */
export async function answerFromComment(ctx: ExtensionContext, tenantId: string, repo: string, issue: number, text: string, sender: string): Promise<{ action: 'question_answered' | 'answer_refused'; questionId: string; reason?: string } | undefined> {
  const match = ANSWER.exec(text.trim());
  if (!match) return undefined;
  const prompt = await ctx.db('question_prompts').where({ tenant_id: tenantId, repo: repo.toLowerCase(), issue_number: issue }).whereNull('closed_at').orderBy('created_at', 'desc').first();
  if (!prompt) return undefined;
  const options = JSON.parse(prompt.options) as string[];
  const given = match[1]!.trim();
  const answer = options.find((o) => o.toLowerCase() === given.toLowerCase()) ?? given;
  const outcome = await answerOwnerQuestion(ctx.host, tenantId, prompt.question_id, answer, 'codehost', sender);
  if (outcome.final) await ctx.db('question_prompts').where({ tenant_id: tenantId, question_id: prompt.question_id }).update({ closed_at: new Date().toISOString() });
  return outcome.accepted ? { action: 'question_answered', questionId: prompt.question_id } : { action: 'answer_refused', questionId: prompt.question_id, reason: outcome.text };
}

export async function createChannelTables(db: Knex): Promise<void> {
  // Deliveries already posted, by their idempotency key: a retried delivery is not posted twice.
  await db.schema.createTable('channel_deliveries', (t) => {
    t.string('delivery_key').primary();
    t.string('external_id').notNullable();
    t.string('created_at').notNullable();
  });
  // Issues that carry an owner question: a "/answer" comment there answers it.
  await db.schema.createTable('question_prompts', (t) => {
    t.string('tenant_id').notNullable();
    t.string('repo').notNullable();
    t.integer('issue_number').notNullable();
    t.string('question_id').notNullable();
    t.text('options').notNullable();
    t.string('closed_at').nullable();
    t.string('created_at').notNullable();
    t.primary(['tenant_id', 'repo', 'issue_number', 'question_id']);
  });
}
