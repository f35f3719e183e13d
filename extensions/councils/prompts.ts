// What each member is asked at each stage, and how a review's vote is read from its answer.
import type { LaunchConfig, Member } from './launch-store.js';

export const VOTES = ['approve', 'reject', 'abstain'] as const;
export type Vote = (typeof VOTES)[number];

export interface Answer {
  agentId: string;
  name: string;
  content: string;
}

export function question(config: LaunchConfig, prompt: string): string {
  return config.questionTemplate.replaceAll('{{prompt}}', prompt);
}

const label = (a: { agentId: string; name: string }) => `${a.name} (${a.agentId})`;
const listed = (answers: Answer[]) => answers.map((a) => `### ${label(a)}\n${a.content}`).join('\n\n');

export function respondingPrompt(config: LaunchConfig, prompt: string, members: number): string {
  return `You are one of ${members} members of the council "${config.name}". Answer the question below in your own words; the other members answer it separately.\n\n${question(config, prompt)}`;
}

export function discussionPrompt(config: LaunchConfig, round: number, others: Answer[]): string {
  return [
    `Discussion round ${round} of ${config.rounds} of the council "${config.name}". Here are the other members' latest answers:`,
    listed(others),
    'Reply with your revised answer: say where you agree or disagree with them, and why.',
  ].join('\n\n');
}

/**
 * The review asks for a strict ending, parsed by parseVote: a line `VOTE: APPROVE`, `VOTE: REJECT` or
 * `VOTE: ABSTAIN`, then a line `REASON: ` followed by the reason (which may go on over further lines).
 */
export function reviewPrompt(config: LaunchConfig, prompt: string, finals: Answer[]): string {
  return [
    `Review stage of the council "${config.name}". The question was:\n\n${question(config, prompt)}`,
    `The members' final answers:\n\n${listed(finals)}`,
    'Review them and vote on whether the council, taken together, has reached a sound answer. End your reply with exactly these two lines:',
    'VOTE: APPROVE or REJECT or ABSTAIN\nREASON: your reason in one or more sentences',
  ].join('\n\n');
}

export function synthesisPrompt(config: LaunchConfig, prompt: string, finals: Answer[], votes: Array<{ name: string; agentId: string; vote: Vote | null; reason: string }>, breakdown: string): string {
  const lines = votes.map((v) => `- ${label(v)}: ${v.vote === null ? 'no valid vote' : v.vote.toUpperCase()} — ${v.reason}`).join('\n');
  return [
    `Synthesis stage of the council "${config.name}". You write the council's final answer to the question:\n\n${question(config, prompt)}`,
    `The members' final answers:\n\n${listed(finals)}`,
    `Their votes (${breakdown}):\n${lines || '- none'}`,
    'Write the final answer of the council, drawing on the answers and the reasons given in the votes.',
  ].join('\n\n');
}

/** The vote and its reason from a review; a review without a valid VOTE line has vote null and says why. */
export function parseVote(text: string): { vote: Vote | null; reason: string } {
  const lines = text.split(/\r?\n/);
  let at = -1;
  for (let i = lines.length - 1; i >= 0; i--) {
    if (/^\s*\**VOTE\**\s*:/i.test(lines[i]!)) {
      at = i;
      break;
    }
  }
  if (at < 0) return { vote: null, reason: 'the review has no "VOTE:" line' };
  const value = lines[at]!.replace(/^\s*\**VOTE\**\s*:[*\s]*/i, '').replace(/[*.\s]+$/, '').toLowerCase();
  if (!(VOTES as readonly string[]).includes(value)) return { vote: null, reason: `"VOTE: ${value}" is not APPROVE, REJECT or ABSTAIN` };
  const rest = lines.slice(at + 1).join('\n');
  const reason = /^\s*\**REASON\**\s*:[*\s]*([\s\S]*)$/i.exec(rest)?.[1]?.trim();
  return { vote: value as Vote, reason: reason || 'no reason given' };
}

export function breakdownOf(votes: Array<{ vote: Vote | null }>): { approve: number; reject: number; abstain: number; invalid: number } {
  const counts = { approve: 0, reject: 0, abstain: 0, invalid: 0 };
  for (const v of votes) counts[v.vote ?? 'invalid']++;
  return counts;
}

export function describeBreakdown(b: ReturnType<typeof breakdownOf>): string {
  const parts = [`${b.approve} approve`, `${b.reject} reject`, `${b.abstain} abstain`];
  if (b.invalid > 0) parts.push(`${b.invalid} without a valid vote`);
  return parts.join(', ');
}

export const answersOf = (members: Member[], events: Array<Record<string, unknown>>): Answer[] =>
  events.flatMap((e) => {
    const member = members.find((m) => m.agentId === e.agentId);
    return member ? [{ agentId: member.agentId, name: member.name, content: String(e.content) }] : [];
  });
