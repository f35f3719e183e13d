// Every reference in a request body is resolved as the caller (docs/security.md): for each field of a
// request body schema that names an id, one tenant sends another tenant's id and is refused as for an
// unknown one, and nothing it sent lands in its resources. The fields come from the schema files, so a
// new one without a case here (or a reason it is not another tenant's) fails the first test.
import assert from 'node:assert/strict';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { basename, join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { createAgent, registerTenant, type Tenant } from '../agents/support.js';
import { repoRoot } from '../helpers/paths.js';
import { startTestServer, type TestServer } from '../helpers/server.js';

// Webhook URLs here are public address literals: a host name would need DNS, which a test never has
// (no connection is made to them; they are only checked at registration).
/** Schemas that describe no request body: stored records, answers, queries, tool and WebSocket input. */
const NOT_A_BODY = /^(record|response|query|ws|mcp|tool|internal|feed|rpc)-/;
/** A field that names an id: `…Id`, `…Ids`, and the few named otherwise. */
const NAMES_AN_ID = (name: string) => /(Id|Ids)$/.test(name) || name === 'id' || name === 'ids' || name === 'members';

/** `<extension>/<schema file>#<field path>` of every id field of every request body schema. */
function idFields(): string[] {
  const fields = new Set<string>();
  const extensions = join(repoRoot, 'extensions');
  for (const extension of readdirSync(extensions)) {
    const dir = join(extensions, extension, 'schemas');
    if (extension.startsWith('_') || !statSync(join(extensions, extension)).isDirectory() || !exists(dir)) continue;
    for (const file of readdirSync(dir).filter((f) => f.endsWith('.json') && !NOT_A_BODY.test(f))) {
      const visit = (node: unknown, path: string): void => {
        if (Array.isArray(node)) return node.forEach((n) => visit(n, path));
        if (!node || typeof node !== 'object') return;
        for (const [key, value] of Object.entries(node)) {
          if (key !== 'properties') visit(value, path);
          else for (const [name, property] of Object.entries(value as object)) {
            if (NAMES_AN_ID(name)) fields.add(`${extension}/${basename(file)}#${path}${name}`);
            visit(property, `${path}${name}.`);
          }
        }
      };
      visit(JSON.parse(readFileSync(join(dir, file), 'utf8')), '');
    }
  }
  return [...fields].sort();
}

function exists(path: string): boolean {
  try {
    return statSync(path).isDirectory();
  } catch {
    return false;
  }
}

/** The caller's own resources (`own`) and the other tenant's (`foreign`), by kind. */
interface Ids {
  own: Record<string, string>;
  foreign: Record<string, string>;
}

interface Case {
  method: string;
  path: (ids: Ids) => string;
  body: (ids: Ids) => Record<string, unknown>;
}

const agentOnly = (field: string) => (ids: Ids) => ({ [field]: ids.foreign.agent });

/** Each id field: the request that names another tenant's resource with it, or why it names none. */
const CASES: Record<string, Case | Case[] | string> = {
  'a2a/task-send.json#id': 'an A2A task id the client picks for a remote task, not a resource of this server',
  'a2a/task-send.json#contextId': 'an A2A context id of the remote conversation',
  'a2a/task-send.json#message.messageId': 'an A2A message id the client picks',
  'agents/skills-put.json#bundleIds': { method: 'PUT', path: (i) => `/api/agents/${i.own.agent}/skills`, body: (i) => ({ bundleIds: [i.foreign.bundle] }) },
  'chainchat/agent-message.json#id': "an internal hand-over from messaging: the agent message it just recorded for the caller's tenant, whose txid is written back through agents as that tenant",
  'device-login/device-decision.json#clientId': "a device approval's answer (a response): the client id the device gave, no resource",
  'device-login/device-decision.json#tenantId': "a device approval's answer (a response): the approver's own tenant",
  'billing/subscription-create.json#tenantId': 'names the tenant whose plan changes: only the instance owner manages another tenant (requireManager)',
  'vcshost/allowlist-create.json#agentId': { method: 'POST', path: () => '/api/vcshost-allowlist', body: (i) => ({ username: 'foreign-helper', agentId: i.foreign.agent }) },
  'vcshost/allowlist-update.json#agentId': { method: 'PUT', path: () => '/api/vcshost-allowlist/own-helper', body: agentOnly('agentId') },
  'councils/council-create.json#members': { method: 'POST', path: () => '/api/councils', body: (i) => ({ name: 'mixed', members: [i.own.agent, i.foreign.agent], rounds: 0 }) },
  'councils/council-create.json#chairId': { method: 'POST', path: () => '/api/councils', body: (i) => ({ name: 'chaired', members: [i.own.agent, i.foreign.agent], chairId: i.foreign.agent, rounds: 0 }) },
  'councils/council-create.json#synthesizerId': { method: 'POST', path: () => '/api/councils', body: (i) => ({ name: 'synth', members: [i.own.agent], synthesizerId: i.foreign.agent, rounds: 0 }) },
  'councils/council-update.json#members': { method: 'PUT', path: (i) => `/api/councils/${i.own.council}`, body: (i) => ({ members: [i.own.agent, i.foreign.agent] }) },
  'councils/council-update.json#chairId': { method: 'PUT', path: (i) => `/api/councils/${i.own.council}`, body: (i) => ({ members: [i.own.agent, i.foreign.agent], chairId: i.foreign.agent }) },
  'councils/council-update.json#synthesizerId': { method: 'PUT', path: (i) => `/api/councils/${i.own.council}`, body: agentOnly('synthesizerId') },
  'credits/claim.json#sessionId': 'an internal route (the session runner claims for its own session); not served over HTTP',
  'credits/claim.json#agentId': 'an internal route, as above',
  'credits/reservation.json#agentId': 'an internal route (the session runner reserves for its own session); not served over HTTP',
  'credits/reservation.json#sessionId': 'an internal route, as above',
  'credits/escrow.json#agentId': 'an internal route (the marketplace holds a use\'s price): the payer is resolved as the caller',
  'credits/escrow.json#payee.tenantId': 'the seller paid, another tenant by design (a marketplace use); its agent is resolved as that tenant',
  'credits/escrow.json#payee.agentId': 'resolved as payee.tenantId, whose agent it must be',
  'discord/config-put.json#applicationId': "Discord's id of the bot application, not a resource of this server",
  'discord/config-put.json#defaultAgentId': { method: 'PUT', path: () => '/api/bridges/discord', body: (i) => ({ botToken: 'x'.repeat(30), applicationId: '123456789', publicKey: 'a'.repeat(64), defaultAgentId: i.foreign.agent }) },
  'exams/exam-run.json#agentId': { method: 'POST', path: () => '/api/exam/run', body: agentOnly('agentId') },
  'marketplace/listing-create.json#resourceId': { method: 'POST', path: () => '/api/marketplace/listings', body: (i) => ({ kind: 'agent', name: 'not mine', resourceId: i.foreign.agent }) },
  'marketplace/listing-create.json#agentId': { method: 'POST', path: () => '/api/marketplace/listings', body: (i) => ({ kind: 'agent', name: 'paid to another', resourceId: i.own.agent, agentId: i.foreign.agent, priceMicroUnits: 5 }) },
  'marketplace/listing-update.json#resourceId': { method: 'PUT', path: (i) => `/api/marketplace/listings/${i.own.listing}`, body: (i) => ({ resourceId: i.foreign.agent }) },
  'marketplace/listing-update.json#agentId': { method: 'PUT', path: (i) => `/api/marketplace/listings/${i.own.listing}`, body: agentOnly('agentId') },
  'marketplace/use.json#agentId': { method: 'POST', path: (i) => `/api/marketplace/listings/${i.own.listing}/use`, body: agentOnly('agentId') },
  'mcp-servers/server-fields.json#agentIds': { method: 'POST', path: () => '/api/mcp-servers', body: (i) => ({ name: 'granted', transport: 'http', url: 'https://mcp.example.com/mcp', agentIds: [i.foreign.agent] }) },
  'messaging/invoke.json#fromAgentId': { method: 'POST', path: (i) => `/api/agents/${i.own.agent}/invoke`, body: (i) => ({ content: 'hello', fromAgentId: i.foreign.agent }) },
  'notifications/channel-create.json#agentId': { method: 'POST', path: () => '/api/notification-channels', body: (i) => ({ type: 'webhook', config: { url: 'https://93.184.215.14/x' }, agentId: i.foreign.agent }) },
  'notifications/channel-update.json#agentId': { method: 'PUT', path: (i) => `/api/notification-channels/${i.own.channel}`, body: agentOnly('agentId') },
  'projects/skills-put.json#bundleIds': { method: 'PUT', path: (i) => `/api/projects/${i.own.project}/skills`, body: (i) => ({ bundleIds: [i.foreign.bundle] }) },
  'reputation/event-create.json#agentId': { method: 'POST', path: () => '/api/reputation/events', body: (i) => ({ agentId: i.foreign.agent, kind: 'review', rating: 1 }) },
  'sandbox/assign.json#sessionId': 'resolved as the caller (GET /api/sessions/:id); no session runs in this file to name',
  'schedules/bulk.json#ids': { method: 'POST', path: () => '/api/schedules/bulk', body: (i) => ({ action: 'pause', ids: [i.foreign.schedule] }) },
  // The schedule's own agentId and the agentId of its action (a $ref'd definition) are one field here.
  'schedules/schedule-fields.json#agentId': [
    { method: 'POST', path: () => '/api/schedules', body: (i) => schedule({ type: 'route', method: 'GET', path: '/api/projects' }, i.foreign.agent) },
    { method: 'POST', path: () => '/api/schedules', body: (i) => schedule({ type: 'session', agentId: i.foreign.agent, prompt: 'hi' }) },
    { method: 'PUT', path: (i) => `/api/schedules/${i.own.schedule}`, body: (i) => ({ action: { type: 'work_task', description: 'x', agentId: i.foreign.agent } }) },
  ],
  'schedules/schedule-fields.json#projectId': [
    { method: 'POST', path: () => '/api/schedules', body: (i) => schedule({ type: 'session', agentId: i.own.agent, projectId: i.foreign.project, prompt: 'hi' }) },
    { method: 'POST', path: () => '/api/schedules', body: (i) => schedule({ type: 'work_task', description: 'x', projectId: i.foreign.project }) },
  ],
  'schedules/schedule-fields.json#councilId': { method: 'POST', path: () => '/api/schedules', body: (i) => schedule({ type: 'council', councilId: i.foreign.council, prompt: 'hi' }) },
  'schedules/schedule-fields.json#workflowId': { method: 'PUT', path: (i) => `/api/schedules/${i.own.schedule}`, body: (i) => ({ action: { type: 'workflow', workflowId: i.foreign.workflow } }) },
  'sessions/session-create.json#agentId': { method: 'POST', path: () => '/api/sessions', body: agentOnly('agentId') },
  'sessions/session-create.json#projectId': { method: 'POST', path: () => '/api/sessions', body: (i) => ({ agentId: i.own.agent, projectId: i.foreign.project }) },
  'sessions/session-create.json#reservationId': 'a credits reservation, held for the session\'s own agent by the credits extension, which checks it is that agent\'s',
  'sandbox/policy.json#agentId': "an answer (GET /api/sandbox/policies/:agentId); the policy's agent is the path's",
  'sessions/message-post.json#reservationId': 'as above, for a message of the caller\'s own session',
  'slack/config-put.json#defaultAgentId': { method: 'PUT', path: () => '/api/bridges/slack', body: (i) => ({ botToken: 'xoxb-1', signingSecret: 's'.repeat(32), defaultAgentId: i.foreign.agent }) },
  'telegram/bridge-config.json#defaultAgentId': { method: 'PUT', path: () => '/api/bridges/telegram', body: (i) => ({ botToken: '1:x', mode: 'polling', defaultAgentId: i.foreign.agent }) },
  'work-tasks/work-task-create.json#agentId': { method: 'POST', path: () => '/api/work-tasks', body: (i) => ({ description: 'x', projectId: i.own.project, agentId: i.foreign.agent }) },
  'work-tasks/work-task-create.json#projectId': { method: 'POST', path: () => '/api/work-tasks', body: (i) => ({ description: 'x', projectId: i.foreign.project, agentId: i.own.agent }) },
  'workflows/approve.json#nodeId': 'a node of the run named in the path, which is the caller\'s',
  'workflows/workflow-create.json#id': "a node's id within the workflow itself; ids a node's config names are resolved as the workflow's tenant when the node runs (a config may be a template)",
  'workflows/workflow-update.json#id': 'as above',
};

const schedule = (action: Record<string, unknown>, agentId?: string) => ({ name: 'names another', intervalSeconds: 3600, action, ...(agentId ? { agentId } : {}) });

describe('every id in a request body is resolved as the caller', () => {
  let server: TestServer;
  let a: Tenant;
  let b: Tenant;
  const ids: Ids = { own: {}, foreign: {} };

  /** The resources of one tenant that the cases name. */
  async function resources(t: Tenant, into: Record<string, string>, name: string): Promise<void> {
    const made = async (path: string, body: unknown) => {
      const res = await server.api('POST', path, { key: t.owner, body });
      assert.equal(res.status, 201, `${path}: ${res.text}`);
      return res.body.id as string;
    };
    into.tenant = t.tenantId;
    into.agent = (await createAgent(server, t.owner, { name: `${name}-agent`, model: 'claude-sonnet-5-5' })).id;
    into.council = await made('/api/councils', { name: `${name} council`, members: [into.agent], rounds: 0 });
    into.workflow = await made('/api/workflows', { name: `${name} flow`, nodes: [{ id: 's', type: 'start' }, { id: 'e', type: 'end' }], edges: [{ from: 's', to: 'e' }] });
    into.project = await made('/api/projects', { name: `${name} project`, workingDir: server.dataDir });
    into.bundle = await made('/api/skill-bundles', { name: `${name}-bundle`, description: 'tools', tools: ['WebFetch'], prompts: [] });
    into.schedule = await made('/api/schedules', { name: `${name} schedule`, intervalSeconds: 3600, enabled: false, action: { type: 'route', method: 'GET', path: '/api/projects' } });
    into.listing = await made('/api/marketplace/listings', { kind: 'agent', name: `${name} listing`, resourceId: into.agent });
    into.channel = await made('/api/notification-channels', { type: 'webhook', config: { url: 'https://93.184.215.14/own' } });
    assert.equal((await server.api('POST', '/api/vcshost-allowlist', { key: t.owner, body: { username: 'own-helper' } })).status, 201);
  }

  before(async () => {
    // A provider key, so that a session is refused for what it names rather than for a missing provider.
    server = await startTestServer({ env: { ANTHROPIC_API_KEY: 'test', ANTHROPIC_BASE_URL: 'http://127.0.0.1:9' } });
    [a, b] = [await registerTenant(server, 'refs-caller'), await registerTenant(server, 'refs-other')];
    await resources(a, ids.own, 'own');
    await resources(b, ids.foreign, 'other');
  });
  after(() => server?.cleanup());

  it('has a case (or a reason) for every id field of every request body schema, and none for a field that is gone', () => {
    const fields = idFields();
    assert.deepEqual(fields.filter((f) => !(f in CASES)), [], 'id fields without a case: add one to CASES');
    assert.deepEqual(Object.keys(CASES).filter((f) => !fields.includes(f)), [], 'cases of fields no schema has');
  });

  for (const [field, entry] of Object.entries(CASES)) {
    if (typeof entry === 'string') continue;
    it(`${field}: another tenant's id is refused as an unknown one`, async () => {
      for (const c of [entry].flat()) {
        const res = await server.api(c.method, c.path(ids), { key: a.owner, body: c.body(ids) });
        const what = `${c.method} ${c.path(ids)} ${JSON.stringify(c.body(ids))}: ${res.status} ${res.text}`;
        assert.ok(res.status === 400 || res.status === 404, what);
        assert.match(res.body.error, /not found|do not exist/i, what);
      }
    });
  }

  it("leaves none of the other tenant's ids in the caller's resources, and the other tenant's agent unpublished", async () => {
    const foreign = Object.entries(ids.foreign).filter(([kind]) => kind !== 'tenant').map(([, id]) => id);
    for (const path of ['/api/marketplace/listings', '/api/vcshost-allowlist', '/api/councils', '/api/schedules', '/api/notification-channels', '/api/mcp-servers', `/api/agents/${ids.own.agent}/skills`, `/api/projects/${ids.own.project}/skills`]) {
      const res = await server.api('GET', path, { key: a.owner });
      assert.equal(res.status, 200, `${path}: ${res.text}`);
      for (const id of foreign) assert.ok(!res.text.includes(id), `${path} holds the other tenant's ${id}`);
    }
    const search = await server.api('GET', `/api/marketplace/search?q=${encodeURIComponent('not mine')}`, { key: b.owner });
    assert.ok(!search.text.includes(ids.foreign.agent), search.text);
  });
});
