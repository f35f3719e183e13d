// Policies per (tenant, agent) and assignments per (tenant, session), shared by every instance
// through the database; the prepared sandboxes themselves are each instance's own (pool.ts).
import type { Knex } from 'knex';
import { DEFAULT_POLICY, type SandboxPolicy } from '../../lib/session-sandbox.js';

export interface PolicyRecord extends SandboxPolicy {
  agentId: string;
  updatedAt: string;
}

export interface Assignment {
  sessionId: string;
  agentId: string;
  sandboxId: string;
  warm: boolean;
  assignedAt: string;
}

interface PolicyRow {
  agent_id: string;
  policy: string;
  updated_at: string;
}

interface AssignmentRow {
  session_id: string;
  agent_id: string;
  sandbox_id: string;
  warm: boolean | number;
  assigned_at: string;
}

const toPolicy = (row: PolicyRow): PolicyRecord => ({ agentId: row.agent_id, ...DEFAULT_POLICY, ...(JSON.parse(row.policy) as Partial<SandboxPolicy>), updatedAt: row.updated_at });
const toAssignment = (row: AssignmentRow): Assignment => ({ sessionId: row.session_id, agentId: row.agent_id, sandboxId: row.sandbox_id, warm: Boolean(row.warm), assignedAt: row.assigned_at });

export class SandboxStore {
  constructor(private readonly db: Knex) {}

  async policies(tenantId: string): Promise<PolicyRecord[]> {
    const rows: PolicyRow[] = await this.db('sandbox_policies').where({ tenant_id: tenantId }).orderBy('agent_id');
    return rows.map(toPolicy);
  }

  async policy(tenantId: string, agentId: string): Promise<PolicyRecord | undefined> {
    const row: PolicyRow | undefined = await this.db('sandbox_policies').where({ tenant_id: tenantId, agent_id: agentId }).first();
    return row ? toPolicy(row) : undefined;
  }

  async putPolicy(tenantId: string, agentId: string, policy: SandboxPolicy, now: string): Promise<PolicyRecord> {
    await this.db('sandbox_policies')
      .insert({ tenant_id: tenantId, agent_id: agentId, policy: JSON.stringify(policy), updated_at: now })
      .onConflict(['tenant_id', 'agent_id'])
      .merge(['policy', 'updated_at']);
    return { agentId, ...policy, updatedAt: now };
  }

  async deletePolicy(tenantId: string, agentId: string): Promise<boolean> {
    return (await this.db('sandbox_policies').where({ tenant_id: tenantId, agent_id: agentId }).delete()) > 0;
  }

  async assignment(tenantId: string, sessionId: string): Promise<Assignment | undefined> {
    const row: AssignmentRow | undefined = await this.db('sandbox_assignments').where({ tenant_id: tenantId, session_id: sessionId }).first();
    return row ? toAssignment(row) : undefined;
  }

  /** False when the session holds a sandbox already (another request won). */
  async assign(tenantId: string, assignment: Assignment): Promise<boolean> {
    await this.db('sandbox_assignments')
      .insert({ tenant_id: tenantId, session_id: assignment.sessionId, agent_id: assignment.agentId, sandbox_id: assignment.sandboxId, warm: assignment.warm, assigned_at: assignment.assignedAt })
      .onConflict(['tenant_id', 'session_id'])
      .ignore();
    return (await this.assignment(tenantId, assignment.sessionId))?.sandboxId === assignment.sandboxId;
  }

  async release(tenantId: string, sessionId: string): Promise<boolean> {
    return (await this.db('sandbox_assignments').where({ tenant_id: tenantId, session_id: sessionId }).delete()) > 0;
  }

  async assignedCount(tenantId: string): Promise<number> {
    const row = await this.db('sandbox_assignments').where({ tenant_id: tenantId }).count({ n: '*' }).first();
    return Number(row?.n ?? 0);
  }
}
