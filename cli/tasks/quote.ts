// Shows an argv the way a person would type it into a POSIX shell (for dry runs and logs).
const SAFE = /^[A-Za-z0-9_@%+=:,./-]+$/;

export function shellQuote(argv: string[]): string {
  return argv.map((arg) => (SAFE.test(arg) ? arg : `'${arg.replace(/'/g, `'\\''`)}'`)).join(' ');
}
