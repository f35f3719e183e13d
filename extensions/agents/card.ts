// The A2A agent card (https://a2a-protocol.org): how another agent system discovers this agent.
// Skills come from the agent's skill bundles. The card names no A2A endpoint (`url`) while the server
// serves no A2A tasks: a card may only advertise a URL that answers.
import type { Bundle } from './bundles.js';
import type { Agent } from './store.js';

export const A2A_PROTOCOL_VERSION = '0.2.5';

export function agentCard(agent: Agent, bundles: Bundle[], serverUrl: string, version: string) {
  return {
    protocolVersion: A2A_PROTOCOL_VERSION,
    name: agent.name,
    description: agent.description || `${agent.name}: a Roost agent running ${agent.model} (${agent.provider})`,
    version,
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
