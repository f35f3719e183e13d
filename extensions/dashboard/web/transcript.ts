// A session's stream events (GET /api/sessions/:id/events and the WebSocket carry the same objects)
// folded into what a person reads: messages, thinking, tool calls with their results, decisions.
export type Item =
  | { kind: 'user'; text: string }
  | { kind: 'assistant'; text: string; turn: number }
  | { kind: 'thinking'; text: string; turn: number }
  | { kind: 'tool'; id: string; name: string; input: unknown; output?: string; isError?: boolean }
  | { kind: 'note'; text: string };

export interface Transcript {
  lastSeq: number;
  items: Item[];
  /** microUnits charged for the turns seen so far. */
  cost: number;
}

export const emptyTranscript = (): Transcript => ({ lastSeq: 0, items: [], cost: 0 });

/** Adds one event; events at or before `lastSeq` were seen already (a replay after a reconnect). */
export function addEvent(t: Transcript, seq: number, event: Record<string, any>): Transcript {
  if (seq <= t.lastSeq) return t;
  const items = t.items.slice();
  const last = items[items.length - 1];
  let cost = t.cost;
  switch (event.type) {
    case 'user_message':
      items.push({ kind: 'user', text: String(event.content ?? '') });
      break;
    case 'text_delta':
      if (last?.kind === 'assistant' && last.turn === event.turn) items[items.length - 1] = { ...last, text: last.text + String(event.text ?? '') };
      else items.push({ kind: 'assistant', text: String(event.text ?? ''), turn: event.turn });
      break;
    case 'thinking_delta':
      if (last?.kind === 'thinking' && last.turn === event.turn) items[items.length - 1] = { ...last, text: last.text + String(event.thinking ?? '') };
      else items.push({ kind: 'thinking', text: String(event.thinking ?? ''), turn: event.turn });
      break;
    case 'tool_use':
      items.push({ kind: 'tool', id: String(event.id), name: String(event.name), input: event.input });
      break;
    case 'tool_result': {
      const index = items.findIndex((i) => i.kind === 'tool' && i.id === event.id);
      if (index >= 0) items[index] = { ...(items[index] as Extract<Item, { kind: 'tool' }>), output: String(event.output ?? ''), isError: Boolean(event.isError) };
      break;
    }
    case 'approval':
      items.push({ kind: 'note', text: `${event.toolName ?? 'tool use'}: ${event.behavior === 'allow' ? 'allowed' : 'denied'}${event.by ? ` by ${event.by}` : ''}` });
      break;
    case 'turn_end':
      cost += Number(event.cost ?? 0);
      break;
    case 'pause':
      items.push({ kind: 'note', text: `paused${event.reason ? `: ${event.reason}` : ''}` });
      break;
    case 'runner_started':
      if (event.reason && event.reason !== 'start') items.push({ kind: 'note', text: `agent restarted (${event.reason})` });
      break;
    default:
      break;
  }
  return { lastSeq: seq, items, cost };
}
