// Turning bus events into feed items: a short sentence, the resource, and the event's data.
import { AGENT_TOPIC_PREFIX } from '../agents/contract.js';
import { SESSION_TOPICS } from '../sessions/contract.js';

export interface FeedItem {
  kind: string;
  summary: string;
  resource: string;
  data: unknown;
}

type Payload = Record<string, any>;

/** The feed item an event makes, or undefined for events that are not activity (token streams, balances). */
export function itemFor(topic: string, payload: Payload): FeedItem | undefined {
  if (topic === SESSION_TOPICS.lifecycle && payload.session) {
    const s = payload.session;
    return { kind: `session.${s.status}`, summary: `session ${s.name ?? s.id} is ${s.status}`, resource: `session:${s.id}`, data: s };
  }
  if (topic.startsWith('project.') && payload.type === 'project_updated') {
    return { kind: `project.${payload.action}`, summary: `project ${payload.project?.name ?? payload.projectId} ${payload.action}`, resource: `project:${payload.projectId}`, data: payload.project ?? null };
  }
  if (topic.startsWith(AGENT_TOPIC_PREFIX) && payload.type === 'agent_updated') {
    return { kind: `agent.${payload.action}`, summary: `agent ${payload.agent?.name ?? payload.agentId} ${payload.action}`, resource: `agent:${payload.agentId}`, data: payload.agent ?? null };
  }
  if (topic.startsWith(AGENT_TOPIC_PREFIX) && payload.type === 'agent_message') {
    return { kind: 'agent.message', summary: `agent ${payload.fromAgentId ?? 'someone'} wrote to agent ${payload.toAgentId ?? payload.agentId}`, resource: `agent:${payload.agentId}`, data: { from: payload.fromAgentId ?? null, to: payload.toAgentId ?? payload.agentId } };
  }
  return undefined;
}
