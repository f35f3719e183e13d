// Thrown inside a task's loop when the task ended meanwhile (cancelled, escalated, timed out): the
// engine drops it quietly. Its own module, so the loop does not import the engine that runs it.
export class TaskEnded extends Error {}
