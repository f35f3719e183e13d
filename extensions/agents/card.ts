// The A2A agent card (https://a2a-protocol.org): how another agent system discovers this agent.
// Skills come from the agent's skill bundles. The card names the agent's A2A endpoint (`url`, the
// contract's A2A_BINDING, which the a2a extension serves) only while a loaded extension declares that
// route — the card route asks the kernel's route table — since a card may only advertise a URL that answers.
import type { Bundle } from './bundles.js';
import { A2A_BINDING, a2aInterfaces } from './contract.js';
import type { Agent } from './store.js';

export function agentCard(agent: Agent, bundles: Bundle[], serverUrl: string, version: string, a2aServed: boolean) {
  const url = a2aServed ? `${serverUrl}${A2A_BINDING.path.replace(':id', encodeURIComponent(agent.id))}` : null;
  const transport = A2A_BINDING.transport;
  return {
    protocolVersion: A2A_BINDING.protocolVersion,
    name: agent.name,
    description: agent.description || `${agent.name}: a Roost agent running ${agent.model} (${agent.provider})`,
    version,
    // 0.3 clients read url and preferredTransport, 1.0 clients supportedInterfaces.
    ...(url ? { url, preferredTransport: transport, additionalInterfaces: [{ url, transport }], supportedInterfaces: a2aInterfaces(url) } : {}),
    provider: { organization: 'Roost', url: serverUrl },
    capabilities: url ? A2A_BINDING.capabilities : { streaming: false, pushNotifications: false, stateTransitionHistory: false },
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
