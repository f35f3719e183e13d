// A step's `when` condition. "ci" / "!ci": the CI environment variable is set (and not "false" or "0");
// "env:NAME" / "!env:NAME": NAME is set and not empty; anything else is a shell command run in the
// project root, and the step runs when it exits 0.
import { execa } from 'execa';

const CONDITION_TIMEOUT_MS = 60_000;

export async function conditionHolds(when: string, options: { cwd: string; env: Record<string, string | undefined> }): Promise<boolean> {
  const builtin = /^(!?)(ci|env:([A-Za-z_][A-Za-z0-9_]*))$/.exec(when);
  if (builtin) {
    const negate = builtin[1] === '!';
    const value = builtin[3] !== undefined ? options.env[builtin[3]] : options.env.CI;
    const set = value !== undefined && value !== '' && (builtin[3] !== undefined || !['false', '0'].includes(value.toLowerCase()));
    return negate ? !set : set;
  }
  const result = await execa('sh', ['-c', when], {
    cwd: options.cwd,
    env: options.env,
    extendEnv: false,
    stdio: 'ignore',
    reject: false,
    timeout: CONDITION_TIMEOUT_MS,
  });
  return result.exitCode === 0;
}
