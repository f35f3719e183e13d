// What a session needs to run an agent, composed in one place: the record, its persona, its skill
// bundles, the system prompt built from all three and the tools its bundles name.
import type { Bundle } from './bundles.js';
import { ARCHETYPES, type Persona } from './personas.js';
import type { Agent } from './store.js';

export interface AgentRuntime {
  agent: Agent;
  persona: Persona | null;
  bundles: Bundle[];
  systemPrompt: string;
  /** Union of the bundles' tools, in assignment order, without repeats. */
  tools: string[];
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
