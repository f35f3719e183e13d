// The name a session gets when it is given none: the start of what it was first asked.
/** At most this many characters of the first prompt name a session that was given no name. */
const TITLE_CHARS = 60;

/** A session's name from its first prompt: its first line, spaces collapsed, cut at a word within TITLE_CHARS. */
export function titleOf(prompt: string): string | undefined {
  const line = prompt.trim().split('\n')[0]!.replace(/\s+/g, ' ').trim();
  if (line === '') return undefined;
  if (line.length <= TITLE_CHARS) return line;
  const cut = line.slice(0, TITLE_CHARS - 1);
  const atWord = cut.lastIndexOf(' ');
  return `${(atWord > TITLE_CHARS / 2 ? cut.slice(0, atWord) : cut).trimEnd()}…`;
}
