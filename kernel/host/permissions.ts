// Where Node's permission model can enforce a grant at the operating-system level, a JavaScript
// extension runs under it: it may read anything, write only its own data folder (unless granted
// `filesystem`), and start processes only when granted `exec`. Grants changed at run time take
// effect in the host at once and at the OS level on the extension's next start.

export function permissionFlags(grants: Set<string>, writableDirs: string[]): string[] {
  const flags = ['--experimental-permission', '--disable-warning=ExperimentalWarning', '--allow-fs-read=*', '--allow-addons'];
  flags.push(grants.has('filesystem') ? '--allow-fs-write=*' : `--allow-fs-write=${writableDirs.join(',')}`);
  if (grants.has('exec')) flags.push('--allow-child-process');
  return flags;
}
