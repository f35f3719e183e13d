// A2A 1.0's task and message shapes: 0.3's task model in protobuf's JSON form (no `kind`, a part is
// `{text}`, enums SCREAMING_CASE). Its own file, as the operations, list, stream and push files all use it.
import { toA2ATask, type TaskRow } from './tasks.js';

const enumOf = (prefix: string, value: string) => `${prefix}_${value.toUpperCase().replace(/-/g, '_')}`;

/** A 0.3 message in 1.0's form: no kind, the role an enum, a part `{text}`. */
function toV1Message(message: { kind?: string; role: string; parts: Array<{ kind?: string; text: string }>; [field: string]: unknown }) {
  const { kind: _kind, role, parts, ...rest } = message;
  return { ...rest, role: enumOf('ROLE', role), parts: parts.map((part) => ({ text: part.text })) };
}

/** The task in 1.0's form (the same task toA2ATask gives 0.3 clients). */
export function toV1Task(row: TaskRow, historyLength?: number) {
  const task = toA2ATask(row, historyLength);
  return {
    id: task.id,
    contextId: task.contextId,
    status: { state: enumOf('TASK_STATE', task.status.state), ...(task.status.message ? { message: toV1Message(task.status.message) } : {}), timestamp: task.status.timestamp },
    artifacts: task.artifacts.map((artifact) => ({ artifactId: artifact.artifactId, name: artifact.name, parts: artifact.parts.map((part) => ({ text: part.text })) })),
    history: task.history.map(toV1Message),
    metadata: task.metadata,
  };
}
