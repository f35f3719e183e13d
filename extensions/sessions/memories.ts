// A new runner's system prompt carries the agent's most relevant memories (those matching the
// session's first prompt, then the most used), read from the memory extension's internal route. The
// tenant's memory settings say how many (0: none). Without the memory extension, or when it cannot
// answer, the session goes on with the agent's own prompt.
import type { CallAs, HostClient } from '../_shared/host-client.js';

/** The memory route takes a query of at most this many characters; a prompt's start says enough. */
const MAX_QUERY = 2_000;

export async function withMemories(host: HostClient, as: CallAs, agentId: string, systemPrompt: string, firstPrompt: string | undefined): Promise<string> {
  const query = firstPrompt ? `?query=${encodeURIComponent(firstPrompt.slice(0, MAX_QUERY))}` : '';
  try {
    const reply = await host.call<{ text?: unknown; code?: string }>('GET', `/api/internal/memory/agents/${encodeURIComponent(agentId)}/context${query}`, null, as);
    if (reply.status === 200 && typeof reply.body?.text === 'string') {
      return reply.body.text ? (systemPrompt ? `${systemPrompt}\n\n${reply.body.text}` : reply.body.text) : systemPrompt;
    }
    if (reply.body?.code !== 'ROUTE_NOT_FOUND') host.log('warn', `memories left out of a session of agent ${agentId}: the memory extension answered ${reply.status} ${reply.body?.code ?? ''}`);
  } catch (err) {
    host.log('warn', `memories left out of a session of agent ${agentId}: ${err instanceof Error ? err.message : String(err)}`);
  }
  return systemPrompt;
}
