// A git remote's URL as a plugin may see it: never the `user:token@` a credential helper-less setup
// keeps in it (https://x-access-token:ghp_…@github.com/o/r), nor a token passed in the query string.
const SCHEME_URL = /^[a-z][a-z0-9+.-]*:\/\//i;

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
