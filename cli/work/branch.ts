// Branch names of the work flow: <author>/<kind>/<name>, each segment lowercase [a-z0-9-].

/** "Ada Lovelace" → "ada-lovelace"; accents dropped, anything else becomes a dash. */
export function slug(text: string): string {
  return text
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '');
}

export function branchName(author: string, kind: string, name: string, issue?: number): string {
  return `${author}/${kind}/${issue === undefined ? name : `${issue}-${name}`}`;
}

/** "ada/fix/42-null-check" → "fix: null check (#42)" (the issue's title in place of the words when
 * known); other branch names → "Update <branch>". */
export function defaultCommitMessage(branch: string, issueTitle?: string): string {
  const parts = branch.split('/');
  if (parts.length !== 3) return `Update ${branch}`;
  const [, kind, name] = parts as [string, string, string];
  const issue = /^(\d+)-(.+)$/.exec(name);
  const words = issue && issueTitle ? issueTitle : (issue ? issue[2]! : name).replace(/-/g, ' ');
  return issue ? `${kind}: ${words} (#${issue[1]})` : `${kind}: ${words}`;
}
