// The level of a line a process wrote to stderr, shared by the kernel (an extension's raw stderr) and the
// extension frame (stderr written while it serves a message, sent as a `log`).

/**
 * The level of a line an extension wrote to stderr, which is no log call: Node's and libraries'
 * warnings are warnings, an uncaught error and its stack are errors, anything else is information.
 */
export function stderrLevel(line: string): 'info' | 'warn' | 'error' {
  if (/^\(node:\d+\) |\b[A-Z]\w*Warning\b/.test(line) || /^\s*(warn|warning)\b/i.test(line)) return 'warn';
  if (/^\s*(Uncaught )?\w*(Error|Exception)\b|^\s+at \S/.test(line)) return 'error';
  return 'info';
}
