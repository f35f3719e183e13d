// ROOST_CLOCK: `test` asks the extensions that keep time (schedules, workflows) for a clock their owner
// moves by hand, so tests never wait for real minutes. The kernel passes the variable to every
// extension; each keeps its own test clock. Refused outright in production.
export function testClockWanted(env: NodeJS.ProcessEnv = process.env): boolean {
  const wanted = env.ROOST_CLOCK ?? 'system';
  if (wanted === 'system') return false;
  if (wanted !== 'test') throw new Error(`ROOST_CLOCK must be "system" or "test", got "${wanted}"`);
  if (env.NODE_ENV === 'production') throw new Error('ROOST_CLOCK=test is refused when NODE_ENV=production');
  return true;
}
