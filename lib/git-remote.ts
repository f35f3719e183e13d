// A git remote's URL: the repository it names on its code host (owner and name), shared by `roost work
// issue` (cli/work/issue.ts) and the bundled github plugin (plugins/github/repo.ts); and the URL as a CLI
// plugin may see it (cli/plugins/project-info.ts).

/** owner/repo from https://host/owner/repo(.git), git@host:owner/repo(.git) or ssh://…/owner/repo. */
export function parseRemote(remote: string): { owner: string; repo: string } | undefined {
  const match = /^(?:[a-z+]+:\/\/(?:[^@/]+@)?[^/]+\/|[^@\s]+@[^:\s]+:)([^/\s]+)\/([^/\s]+?)(?:\.git)?\/?$/i.exec(remote.trim());
  return match ? { owner: match[1]!, repo: match[2]! } : undefined;
}

const SCHEME_URL = /^[a-z][a-z0-9+.-]*:\/\//i;

/**
 * The URL without the `user:token@` a credential helper-less setup keeps in it
 * (https://x-access-token:ghp_…@github.com/o/r), nor a token passed in the query string.
 */
export function stripCredentials(url: string): string {
  if (!SCHEME_URL.test(url)) return url; // a path, or scp-like git@host:o/r whose user is no secret
  try {
    const parsed = new URL(url);
    // ssh://git@host keeps its user name: it is the account to log in as, not a credential.
    const keepUser = /^(ssh|git\+ssh):$/.test(parsed.protocol) && parsed.password === '';
    if (!keepUser) parsed.username = '';
    parsed.password = '';
    parsed.search = '';
    return parsed.toString();
  } catch {
    // Not parseable as a URL: drop everything up to the last @ of the authority, to be safe.
    return url.replace(/^([a-z][a-z0-9+.-]*:\/\/)[^/]*@/i, '$1');
  }
}
