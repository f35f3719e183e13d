// The A2A agent card (https://a2a-protocol.org): how another agent system discovers this agent.
// Skills come from the agent's skill bundles. The card names the agent's A2A endpoint (`url`, the a2a
// extension's JSON-RPC binding at /a2a/agents/:id) only while that extension serves it — the route asks
// it (GET /api/internal/a2a/interface) — since a card may only advertise a URL that answers.
import type { Bundle } from './bundles.js';
import type { Agent } from './store.js';

export const A2A_PROTOCOL_VERSION = '0.3.0';

/** What the a2a extension serves for one agent: the transport and the path ({agentId} to fill in). */
export interface A2AInterface {
  protocolVersion: string;
  transport: string;
  agentPath: string;
}

export function agentCard(agent: Agent, bundles: Bundle[], serverUrl: string, version: string, a2a: A2AInterface | null) {
  const url = a2a && `${serverUrl}${a2a.agentPath.replace('{agentId}', encodeURIComponent(agent.id))}`;
  return {
    protocolVersion: a2a?.protocolVersion ?? A2A_PROTOCOL_VERSION,
    name: agent.name,
    description: agent.description || `${agent.name}: a Roost agent running ${agent.model} (${agent.provider})`,
    version,
    ...(url ? { url, preferredTransport: a2a!.transport, additionalInterfaces: [{ url, transport: a2a!.transport }] } : {}),
    provider: { organization: 'Roost', url: serverUrl },
    capabilities: { streaming: false, pushNotifications: false, stateTransitionHistory: false },
    securitySchemes: { bearer: { type: 'http', scheme: 'bearer' } },
    security: [{ bearer: [] }],
    defaultInputModes: ['text/plain'],
    defaultOutputModes: ['text/plain'],
    skills: bundles.map((b) => ({
      id: b.id,
      name: b.name,
      description: b.description || b.name,
      tags: b.tools,
      examples: b.prompts.slice(0, 3),
    })),
    metadata: { agentId: agent.id, wallet: agent.wallet, model: agent.model, provider: agent.provider },
  };
}
