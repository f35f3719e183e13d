// The scheduler of this process, made in setup (main.ts) and used by the routes and tools.
import { RoostError } from '../../protocol/errors.js';
import type { Scheduler } from './scheduler.js';

let current: Scheduler | undefined;

export function setScheduler(scheduler: Scheduler | undefined): void {
  current = scheduler;
}

export function scheduler(): Scheduler {
  if (!current) throw new RoostError('EXTENSION_UNAVAILABLE', 'the scheduler has not started');
  return current;
}
