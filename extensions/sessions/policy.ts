// Who may do what without asking: the server's operational mode first, then the agent's permission
// mode, by kind of tool. Protected files are refused by the runner itself, in every mode.
//
//              read   write   shell   mcp
//   default    allow  ask     ask     allow
//   acceptEdits allow allow   ask     allow
//   full-auto  allow  allow   allow   allow
//   plan       allow  deny    deny    allow
//   operational mode `queued`: everything but reads waits on the escalation queue
//   operational mode `paused`: everything is denied
import type { PermissionMode } from './lookups.js';
import type { ToolKind } from './runner/protocol.js';

export const OPERATIONAL_MODES = ['normal', 'queued', 'paused'] as const;
export type OperationalMode = (typeof OPERATIONAL_MODES)[number];

export type Verdict = { kind: 'allow' } | { kind: 'deny'; reason: string } | { kind: 'ask' } | { kind: 'queue' };

export function decide(mode: OperationalMode, permission: PermissionMode, tool: ToolKind): Verdict {
  if (mode === 'paused') return { kind: 'deny', reason: 'the server is in operational mode "paused": every tool use is denied' };
  if (tool === 'read') return { kind: 'allow' };
  if (mode === 'queued') return { kind: 'queue' };
  switch (permission) {
    case 'full-auto':
      return { kind: 'allow' };
    case 'plan':
      return tool === 'mcp' ? { kind: 'allow' } : { kind: 'deny', reason: 'the agent is in plan mode: it may read and plan, not change files or run commands' };
    case 'acceptEdits':
      return tool === 'shell' ? { kind: 'ask' } : { kind: 'allow' };
    default:
      return tool === 'mcp' ? { kind: 'allow' } : { kind: 'ask' };
  }
}
