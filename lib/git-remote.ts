// The repository a git remote names on its code host: owner and name, from the remote's URL. Shared by
// `roost work issue` (cli/work/issue.ts) and the bundled github plugin (plugins/github/repo.ts).

/** owner/repo from https://host/owner/repo(.git), git@host:owner/repo(.git) or ssh://…/owner/repo. */
export function parseRemote(remote: string): { owner: string; repo: string } | undefined {
  const match = /^(?:[a-z+]+:\/\/(?:[^@/]+@)?[^/]+\/|[^@\s]+@[^:\s]+:)([^/\s]+)\/([^/\s]+?)(?:\.git)?\/?$/i.exec(remote.trim());
  return match ? { owner: match[1]!, repo: match[2]! } : undefined;
}
