// Slash commands sent on-chain. Anyone allowed to talk may ask /help, /status, /credits, /stop and
// /agent; the privileged ones (/approve, /deny, /answer, /grant, /allow) are the owner's addresses' only.
// Every answer goes back on-chain.
import algosdk from 'algosdk';
import { resolveEscalation } from '../../sdk/bridge/escalations.js';
import { answerOwnerQuestion } from '../notifications/contract.js';
import type { Account } from './accounts.js';
import { agentOf } from './conversation.js';
import type { Standing } from './inbound.js';
import { sendText } from './outbound.js';
import type { State } from './state.js';
import { agentsClient } from '../agents/contract.js';
import { sessionsClient } from '../sessions/contract.js';

export const HELP = [
  'Write to talk to your agent.',
  '/status: your agent, session and credits',
  '/credits: your credit balance',
  '/stop: stop your session (the next message starts a new one)',
  '/agent [name]: list the agents, or talk to another one',
  '/help: this list',
  'Owner only: /approve <id>, /deny <id>, /answer <id> <text>, /grant <address> <microUnits>, /allow <address> [label]',
].join('\n');

const PRIVILEGED = new Set(['approve', 'deny', 'answer', 'grant', 'allow']);
const MAX_GRANT = 1_000_000;

export async function runCommand(s: State, account: Account, address: string, standing: Standing, text: string): Promise<void> {
  const [head = '', ...rest] = text.split(/\s+/);
  const command = head.slice(1).toLowerCase();
  const say = (reply: string) => sendText(s, account, address, reply).then(() => undefined);
  if (PRIVILEGED.has(command) && standing !== 'owner') return say(`/${command} is for the owner's addresses only.`);
  const tenantId = account.tenantId;
  const participant = (await s.conversations.participant(tenantId, address))!;
  switch (command) {
    case 'help':
      return say(HELP);
    case 'credits':
      return say(standing === 'owner' ? 'Owner addresses are not charged.' : `Credits: ${participant.credits} microUnits.`);
    case 'status': {
      const agent = await agentOf(s, tenantId, address);
      return say([
        `Network: ${account.network}; you are ${standing === 'open' ? 'allowed (open allowlist)' : standing}.`,
        `Agent: ${agent ? agent.name : 'none'}`,
        `Session: ${participant.sessionId ?? 'none yet'}`,
        `Credits: ${standing === 'owner' ? 'not charged' : participant.credits}`,
      ].join('\n'));
    }
    case 'stop': {
      if (!participant.sessionId) return say('There is no session to stop.');
      const res = await sessionsClient(s.ctx.host, { tenantId }).stop(participant.sessionId);
      await s.conversations.update(tenantId, address, { sessionId: null });
      return say(res.status === 200 ? `Stopped session ${participant.sessionId}.` : `Session ${participant.sessionId} is closed here (${res.body?.error ?? res.status}).`);
    }
    case 'agent': {
      const name = rest.join(' ').trim();
      const list = await agentsClient(s.ctx.host, { tenantId }).list({ limit: 200 });
      const agents = list.body?.agents ?? [];
      const names = agents.map((a) => a.name).join(', ') || 'none';
      if (!name) return say(`Agents: ${names}`);
      const agent = agents.find((a) => a.name.toLowerCase() === name.toLowerCase());
      if (!agent) return say(`No agent named "${name}". Agents: ${names}`);
      await s.conversations.update(tenantId, address, { agentId: agent.id, sessionId: null });
      return say(`Now talking to ${agent.name}.`);
    }
    case 'approve':
    case 'deny': {
      const prompt = rest[0] ? await s.inbound.prompt(tenantId, rest[0]) : undefined;
      if (!prompt || prompt.kind !== 'approval') return say(`No approval ${rest[0] ?? ''} is waiting.`);
      return say(await resolveEscalation(s.ctx.host, tenantId, prompt.refId, command === 'approve' ? 'allow' : 'deny', address));
    }
    case 'answer': {
      const prompt = rest[0] ? await s.inbound.prompt(tenantId, rest[0]) : undefined;
      const answer = rest.slice(1).join(' ').trim();
      if (!prompt || prompt.kind !== 'question') return say(`No question ${rest[0] ?? ''} is waiting.`);
      if (!answer) return say(`Say /answer ${prompt.shortId} <your answer>.`);
      return say((await answerOwnerQuestion(s.ctx.host, tenantId, prompt.refId, answer, 'chainchat', address)).text);
    }
    case 'grant': {
      const [to = '', amount = ''] = rest;
      const microUnits = Number(amount);
      if (!algosdk.isValidAddress(to) || !Number.isInteger(microUnits) || microUnits < 1 || microUnits > MAX_GRANT) return say(`Say /grant <address> <microUnits from 1 to ${MAX_GRANT}>.`);
      await s.conversations.ensure(tenantId, to, s.config.initialCredits);
      return say(`Granted ${microUnits} microUnits to ${to}: it now has ${await s.conversations.addCredits(tenantId, to, microUnits)}.`);
    }
    case 'allow': {
      const [to = '', ...label] = rest;
      if (!algosdk.isValidAddress(to)) return say('Say /allow <address> [label].');
      const added = await s.allowlist.add(tenantId, { address: to, label: label.join(' ').slice(0, 200), owner: false });
      return say(added ? `${to} may talk to the agents now.` : `${to} is on the allowlist already.`);
    }
    default:
      return say(`Unknown command /${command}.\n${HELP}`);
  }
}
