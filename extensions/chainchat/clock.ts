// Chainchat's clock: the system's, or with ROOST_CLOCK=test one a test moves forward by hand
// (POST /api/internal/chainchat/test-clock), so a rotated key's grace period ends without waiting.
import { testClockWanted } from '../../sdk/test-clock.js';

export class Clock {
  private offsetMs = 0;
  readonly isTest = testClockWanted();

  now = (): Date => new Date(Date.now() + this.offsetMs);

  advance(ms: number): Date {
    this.offsetMs += ms;
    return this.now();
  }
}
