// Where Node's permission model can enforce a grant at the operating-system level, a JavaScript
// extension runs under it: it may read anything, write only its own data folder (unless granted
// `filesystem`), and start processes only when granted `exec`. Grants changed at run time take
// effect in the host at once and at the OS level on the extension's next start.

export function permissionFlags(grants: ReadonlySet<string>, writableDirs: string[]): string[] {
  // --allow-addons (the better-sqlite3 binding) draws a SecurityWarning on every start: known and intended.
  const flags = ['--experimental-permission', '--disable-warning=ExperimentalWarning', '--disable-warning=SecurityWarning', '--allow-fs-read=*', '--allow-addons'];
  // One flag per folder: Node 20.16+ reads a comma-separated list as a single path.
  if (grants.has('filesystem')) flags.push('--allow-fs-write=*');
  else for (const dir of writableDirs) flags.push(`--allow-fs-write=${dir}`);
  if (grants.has('exec')) flags.push('--allow-child-process');
  return flags;
}
