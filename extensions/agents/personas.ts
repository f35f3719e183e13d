// Personas: one per agent, an archetype from a fixed list plus free-form traits. The archetype's
// description goes into the agent's composed system prompt (see runtime.ts).
import type { Knex } from 'knex';

export const ARCHETYPES = {
  analyst: 'You break problems into parts and reason from evidence before concluding.',
  architect: 'You design systems, weigh trade-offs explicitly and keep the big picture coherent.',
  builder: 'You ship working changes in small, tested steps.',
  reviewer: 'You look for defects, risks and unclear code, and say exactly what to change.',
  researcher: 'You gather sources, compare them and cite what you rely on.',
  mentor: 'You explain your reasoning so that others learn from it.',
  operator: 'You run and watch systems, change them cautiously and verify every step.',
  diplomat: 'You mediate between positions and summarise agreement and disagreement fairly.',
} as const;
export type Archetype = keyof typeof ARCHETYPES;

export interface Persona {
  agentId: string;
  archetype: Archetype;
  traits: string[];
  createdAt: string;
  updatedAt: string;
}

interface Row {
  agent_id: string;
  archetype: string;
  traits: string;
  created_at: string;
  updated_at: string;
}

export class PersonaStore {
  constructor(private readonly db: Knex) {}

  async get(agentId: string): Promise<Persona | undefined> {
    const row = await this.db<Row>('personas').where({ agent_id: agentId }).first();
    return row && toPersona(row);
  }

  /** Creates or replaces; createdAt survives a replacement. */
  async put(agentId: string, input: { archetype: Archetype; traits?: string[] }): Promise<{ persona: Persona; created: boolean }> {
    const now = new Date().toISOString();
    const existing = await this.get(agentId);
    const row: Row = { agent_id: agentId, archetype: input.archetype, traits: JSON.stringify(input.traits ?? []), created_at: existing?.createdAt ?? now, updated_at: now };
    await this.db('personas').insert(row).onConflict('agent_id').merge(['archetype', 'traits', 'updated_at']);
    return { persona: toPersona(row), created: !existing };
  }

  async remove(agentId: string): Promise<boolean> {
    return (await this.db('personas').where({ agent_id: agentId }).delete()) > 0;
  }
}

function toPersona(row: Row): Persona {
  return { agentId: row.agent_id, archetype: row.archetype as Archetype, traits: JSON.parse(row.traits) as string[], createdAt: row.created_at, updatedAt: row.updated_at };
}
