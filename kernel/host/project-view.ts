// What `init.project` shows a plugin: the remote (its name and URL) only with the `metadata` grant,
// the same rule as the `metadata` message. Branch and dirty state are no secret and always shown.
import type { ProjectInfo } from '../../protocol/messages.js';

export function projectSeenBy(project: ProjectInfo | null, grants: ReadonlySet<string>): ProjectInfo | null {
  if (!project?.git || grants.has('metadata')) return project;
  return { ...project, git: { ...project.git, remote: null, remote_url: null } };
}
