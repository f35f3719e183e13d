// A new runner's system prompt carries the agent's most relevant memories (those matching the
// session's first prompt, then the most used), read from the memory extension's internal route. The
// agent's or its tenant's memory settings say how many (0: none). Without the memory extension, or
// when it cannot answer, the session goes on with the agent's own prompt.
import type { CallAs, HostClient } from '../../sdk/host-client.js';
import { MemoryClient } from '../memory/contract.js';

/** The memory route takes a query of at most this many characters; a prompt's start says enough. */
const MAX_QUERY = 2_000;
/** Each kind of failure is logged once per process: a server without a memory key would otherwise warn on every runner. */
const warned = new Set<string>();

function warnOnce(host: HostClient, kind: string, message: string): void {
  if (warned.has(kind)) return;
  warned.add(kind);
  host.log('warn', `${message} (logged once)`);
}

export async function withMemories(host: HostClient, as: CallAs, agentId: string, systemPrompt: string, firstPrompt: string | undefined): Promise<string> {
  const query = firstPrompt ? firstPrompt.slice(0, MAX_QUERY) : undefined;
  try {
    const reply = await new MemoryClient(host).context(agentId, query, as);
    if (reply.status === 200 && typeof reply.body?.text === 'string') {
      return reply.body.text ? (systemPrompt ? `${systemPrompt}\n\n${reply.body.text}` : reply.body.text) : systemPrompt;
    }
    if (reply.body?.code !== 'ROUTE_NOT_FOUND') warnOnce(host, `${reply.status}`, `memories left out of sessions: the memory extension answered ${reply.status} ${reply.body?.code ?? ''}`);
  } catch (err) {
    warnOnce(host, 'call', `memories left out of sessions: ${err instanceof Error ? err.message : String(err)}`);
  }
  return systemPrompt;
}
