// The one engine of this extension process, made in setup.
import { RoostError } from '../../protocol/errors.js';
import type { Engine } from './engine.js';

let current: Engine | undefined;

export function setEngine(engine: Engine | undefined): void {
  current = engine;
}

export function engine(): Engine {
  if (!current) throw new RoostError('EXTENSION_UNAVAILABLE', 'the work-task engine has not started');
  return current;
}
