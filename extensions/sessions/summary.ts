// The summary a fresh runner starts from after a context reset (every N turns, a crash, a resume, a
// server restart). It is built from the stored conversation, deterministically and without a model
// call: the first request in full (bounded), then the most recent exchanges, each clipped, newest
// last, within a fixed budget.
import type { Knex } from 'knex';

const BUDGET_CHARS = 12_000;
const FIRST_REQUEST_CHARS = 3_000;
const ENTRY_CHARS: Record<string, number> = { user: 1_500, assistant: 1_200, tool: 300 };

interface Row {
  seq: number;
  role: string;
  content: string;
  meta: string | null;
}

/** Null when there is nothing to summarise yet. `exclude`: seqs of user messages not answered yet. */
export async function buildSummary(db: Knex, sessionId: string, exclude: Set<number>): Promise<string | null> {
  const rows: Row[] = (await db('session_messages').where({ session_id: sessionId }).whereIn('role', ['user', 'assistant', 'tool']).orderBy('seq')).filter(
    (r: Row) => !exclude.has(r.seq),
  );
  if (rows.length === 0) return null;
  const first = rows.find((r) => r.role === 'user');
  const head = first ? `The user's first request:\n${clip(first.content, FIRST_REQUEST_CHARS)}\n` : '';
  const lines: string[] = [];
  let used = head.length;
  for (let i = rows.length - 1; i >= 0; i--) {
    const row = rows[i]!;
    if (row === first) continue;
    const line = describe(row);
    if (used + line.length > BUDGET_CHARS) {
      lines.unshift(`- … ${i + 1} earlier entries left out`);
      break;
    }
    lines.unshift(line);
    used += line.length + 1;
  }
  const timeline = lines.length > 0 ? `\nWhat happened since, oldest first:\n${lines.join('\n')}\n` : '';
  return `${head}${timeline}\nThe earlier context was reset to keep it small; files on disk reflect every change made so far.`;
}

function describe(row: Row): string {
  const meta = row.meta ? (JSON.parse(row.meta) as Record<string, unknown>) : {};
  if (row.role === 'tool') return `- tool ${String(meta.name)} ${meta.isError ? 'failed' : 'returned'}: ${clip(row.content, ENTRY_CHARS.tool!)}`;
  if (row.role === 'assistant') {
    const uses = (meta.toolUses as Array<{ name: string; input: unknown }> | undefined) ?? [];
    const calls = uses.map((u) => ` [called ${u.name} ${clip(JSON.stringify(u.input), 200)}]`).join('');
    return `- assistant: ${clip(row.content, ENTRY_CHARS.assistant!)}${calls}`;
  }
  return `- user: ${clip(row.content, ENTRY_CHARS.user!)}`;
}

function clip(text: string, max: number): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length > max ? `${flat.slice(0, max)}…` : flat;
}
