// The projects extension's contract with its callers (sessions read a session's project; work tasks
// and exams make and remove projects of their own; references are checked through its read route).
// It imports nothing of projects' own code; projects types its records and handlers with it.
import type { CallAs, HostClient } from '../../sdk/host-client.js';
import { callRoute, routePath } from '../../sdk/route-call.js';

export const PROJECTS_ROUTES = {
  list: 'GET /api/projects',
  create: 'POST /api/projects',
  get: 'GET /api/projects/:id',
  update: 'PUT /api/projects/:id',
  remove: 'DELETE /api/projects/:id',
  skills: 'GET /api/projects/:id/skills',
  setSkills: 'PUT /api/projects/:id/skills',
  browseDirs: 'GET /api/browse-dirs',
} as const;

export interface Project {
  id: string;
  name: string;
  description: string;
  workingDir: string;
  env_vars: Record<string, string>;
  createdAt: string;
  updatedAt: string;
}

export type ProjectInput = Partial<Pick<Project, 'name' | 'description' | 'workingDir' | 'env_vars'>>;
export type CreateProjectRequest = Required<Pick<ProjectInput, 'name' | 'workingDir'>> & ProjectInput;

export interface ProjectList {
  projects: Project[];
  total?: number;
  hasMore: boolean;
}

/** The path that reads one project, for callers with their own reading helper. */
export const projectPath = (id: string): string => routePath(PROJECTS_ROUTES.get, { id }).path;

type Reply<T> = Promise<{ status: number; body: T | null }>;

export class ProjectsClient {
  constructor(private readonly host: HostClient) {}

  list(query: { limit?: number; offset?: number; search?: string }, as: CallAs): Reply<ProjectList> {
    return callRoute(this.host, PROJECTS_ROUTES.list, { query }, as);
  }

  /** 201 and the project. */
  create(project: CreateProjectRequest, as: CallAs): Reply<Project & { error?: string }> {
    return callRoute(this.host, PROJECTS_ROUTES.create, { body: project }, as);
  }

  get(id: string, as: CallAs): Reply<Project> {
    return callRoute(this.host, PROJECTS_ROUTES.get, { params: { id } }, as);
  }

  /** The skill bundles assigned to the project, in order. */
  skills(id: string, as: CallAs): Reply<{ projectId: string; bundleIds: string[] }> {
    return callRoute(this.host, PROJECTS_ROUTES.skills, { params: { id } }, as);
  }

  /** 204. */
  remove(id: string, as: CallAs): Reply<unknown> {
    return callRoute(this.host, PROJECTS_ROUTES.remove, { params: { id } }, as);
  }
}
