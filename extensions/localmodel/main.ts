// The local model runner extension: a tenant-safe front for the machine's Ollama. Reading is open to
// every caller; pulling and deleting models change the machine, so only the instance owner may.
import { join } from 'node:path';
import { validate } from '../../protocol/validate.js';
import { runExtension, type ExtensionContext } from '../../sdk/extension.js';
import { ok, queryString } from '../../sdk/http.js';
import { requireInstanceOwner } from '../../sdk/roles.js';
import { LOCALMODEL_ROUTES, type LocalModelStatus } from './contract.js';
import { searchLibrary } from './library.js';
import { DEFAULT_OLLAMA_HOST, OllamaClient } from './ollama.js';
import { Pulls } from './pulls.js';

/** The running state (what setup returns): the Ollama client and the pulls in progress. */
interface LocalModel {
  client: OllamaClient;
  pulls: Pulls;
}

const modelName = (ctx: ExtensionContext, body: unknown) => validate<{ name: string }>(join(ctx.init.plugin.dir, 'schemas/model-name.json'), body).name;
const full = (name: string) => (name.includes(':') ? name : `${name}:latest`);

runExtension<LocalModel>({
  async setup(ctx) {
    const client = new OllamaClient(((await ctx.host.secret('OLLAMA_HOST')) ?? DEFAULT_OLLAMA_HOST).replace(/\/+$/, ''));
    return { client, pulls: new Pulls() };
  },
  routes: {
    async [LOCALMODEL_ROUTES.status](_req, _ctx, { client }) {
      let status: LocalModelStatus;
      try {
        const { version } = await client.json<{ version: string }>('GET', '/api/version');
        const { models } = await client.json<{ models: unknown[] }>('GET', '/api/ps');
        status = { available: true, host: client.host, version, running: models.length };
      } catch (err) {
        status = { available: false, host: client.host, error: (err as Error).message };
      }
      return ok(status);
    },
    async 'GET /api/localmodel/models'(_req, _ctx, { client }) {
      return ok(await client.json('GET', '/api/tags'));
    },
    async 'GET /api/localmodel/models/running'(_req, _ctx, { client }) {
      return ok(await client.json('GET', '/api/ps'));
    },
    async 'POST /api/localmodel/models/pull'(req, ctx, { client, pulls }) {
      requireInstanceOwner(req.auth, 'change the local models');
      const name = modelName(ctx, req.body);
      return { status: 202, body: pulls.start(name, client, ctx) };
    },
    async 'GET /api/localmodel/models/pull/status'(_req, _ctx, { pulls }) {
      return ok({ pulls: pulls.list() });
    },
    async 'DELETE /api/localmodel/models'(req, ctx, { client }) {
      requireInstanceOwner(req.auth, 'change the local models');
      const name = modelName(ctx, req.body ?? { name: queryString(req.query, 'name') });
      await client.json('DELETE', '/api/delete', { name });
      ctx.host.audit('localmodel.deleted', `model:${full(name)}`, {});
      return ok({ deleted: full(name) });
    },
    async 'GET /api/localmodel/library'(req, _ctx, { client }) {
      // A runner that does not answer leaves the catalogue alone, with nothing marked installed.
      const names = (path: '/api/tags' | '/api/ps') =>
        client.json<{ models: Array<{ name: string }> }>('GET', path).then(
          (r) => new Set(r.models.map((m) => m.name)),
          () => new Set<string>(),
        );
      const [installed, running] = await Promise.all([names('/api/tags'), names('/api/ps')]);
      return ok({ models: searchLibrary(queryString(req.query, 'search'), { installed, running }) });
    },
  },
});
