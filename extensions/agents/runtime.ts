// What a session needs to run an agent, composed in one place: the record, its persona, its skill
// bundles, the system prompt built from all three and the tools its bundles name.
import type { Bundle } from './bundles.js';
import { ARCHETYPES, type Persona } from './personas.js';
import type { Agent } from './store.js';
import type { AgentRuntimeView } from './contract.js';

/** The contract's runtime view (GET /api/internal/agents/:id/runtime), with the persona and bundles it was built from. */
export interface AgentRuntime extends AgentRuntimeView {
  agent: Agent;
  persona: Persona | null;
  bundles: Bundle[];
}

export function composeRuntime(agent: Agent, persona: Persona | null, bundles: Bundle[]): AgentRuntime {
  const parts: string[] = [];
  if (agent.systemPrompt.trim()) parts.push(agent.systemPrompt.trim());
  if (persona) {
    const traits = persona.traits.length > 0 ? ` Your traits: ${persona.traits.join(', ')}.` : '';
    const article = /^[aeiou]/.test(persona.archetype) ? 'an' : 'a';
    parts.push(`Persona: you are ${article} ${persona.archetype}. ${ARCHETYPES[persona.archetype]}${traits}`);
  }
  for (const bundle of bundles) {
    const lines = [`Skill "${bundle.name}"${bundle.description ? `: ${bundle.description}` : ''}`, ...bundle.prompts.map((p) => `- ${p}`)];
    parts.push(lines.join('\n'));
  }
  return { agent, persona, bundles, systemPrompt: parts.join('\n\n'), tools: [...new Set(bundles.flatMap((b) => b.tools))] };
}
