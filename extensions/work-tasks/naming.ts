// The branch a work task works on: <agent>/<kind>/<slug>, the slug from the description plus a few
// characters of the task id so two tasks never share a branch.
const KINDS: Array<[RegExp, string]> = [
  [/^\s*(fix|bug|repair|correct)/i, 'fix'],
  [/^\s*(doc|document)/i, 'docs'],
  [/^\s*(test)/i, 'test'],
  [/^\s*(refactor|clean|rename|move)/i, 'refactor'],
  [/^\s*(update|upgrade|bump|chore)/i, 'chore'],
];

export function slugify(text: string, max: number): string {
  const slug = text.toLowerCase().normalize('NFKD').replace(/[^a-z0-9]+/g, '-').replace(/^-+|-+$/g, '');
  return slug.slice(0, max).replace(/-+$/, '') || 'task';
}

export function taskKind(description: string): string {
  return KINDS.find(([pattern]) => pattern.test(description))?.[1] ?? 'feat';
}

export function branchName(agentName: string, description: string, taskId: string): string {
  return `${slugify(agentName, 30)}/${taskKind(description)}/${slugify(description, 40)}-${taskId.slice(0, 6)}`;
}

/** The pull request's title: the description's first line, shortened. */
export function pullTitle(description: string): string {
  const first = description.trim().split('\n')[0]!.trim();
  return first.length > 72 ? `${first.slice(0, 71)}…` : first;
}
