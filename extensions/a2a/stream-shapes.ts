// A task's stream events (task-stream.ts) in each version's shape: A2A 0.3's Task,
// TaskStatusUpdateEvent (with `final`) and TaskArtifactUpdateEvent, each with its `kind`; A2A 1.0's
// StreamResponse, whose one field says which ({task}, {statusUpdate}, {artifactUpdate}; no `final`:
// the stream ends after the last).
import type { TaskEvent } from './task-stream.js';
import { toA2ATask } from './tasks.js';
import { toV1Task } from './v1-shapes.js';

export function eventV03(event: TaskEvent): unknown {
  const task = toA2ATask(event.row);
  if (event.kind === 'task') return task;
  const ids = { taskId: task.id, contextId: task.contextId };
  if (event.kind === 'artifact') return { kind: 'artifact-update', ...ids, artifact: task.artifacts[0], lastChunk: true };
  return { kind: 'status-update', ...ids, status: task.status, final: event.final };
}

export function eventV1(event: TaskEvent): unknown {
  const task = toV1Task(event.row);
  if (event.kind === 'task') return { task };
  const ids = { taskId: task.id, contextId: task.contextId };
  if (event.kind === 'artifact') return { artifactUpdate: { ...ids, artifact: task.artifacts[0], lastChunk: true } };
  return { statusUpdate: { ...ids, status: task.status } };
}
