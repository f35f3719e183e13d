// Moved to protocol/proc.ts (the sessions runner's sandbox watchdog reads the same process tree).
export * from '../../protocol/proc.js';
