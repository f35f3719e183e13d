// The kernel's route table on its own: matching by method and path, literal segments before parameters,
// HEAD served by GET, the methods a path allows, and one owner per route.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { RouteDecl } from '../../kernel/host/manifest.js';
import { RouteTable } from '../../kernel/http/route-table.js';

const route = (method: RouteDecl['method'], path: string, extra: Partial<RouteDecl> = {}): RouteDecl => ({ method, path, public: false, raw: false, internal: false, ...extra });
const nothingReserved = () => false;

describe('RouteTable', () => {
  it('matches by method and path and hands back the decoded parameters', () => {
    const table = new RouteTable();
    table.addAll('projects', [route('GET', '/api/projects/:id'), route('DELETE', '/api/projects/:id')], nothingReserved);
    const found = table.match('GET', '/api/projects/a%20b');
    assert.equal(found?.owner, 'projects');
    assert.equal(found?.key, 'GET /api/projects/:id');
    assert.deepEqual(found?.params, { id: 'a b' });
    assert.equal(table.match('POST', '/api/projects/x'), undefined);
    assert.equal(table.match('GET', '/api/projects'), undefined);
    assert.equal(table.match('GET', '/api/projects/x/y'), undefined);
  });

  it('serves HEAD with the GET route', () => {
    const table = new RouteTable();
    table.addAll('feed', [route('GET', '/api/feed')], nothingReserved);
    assert.equal(table.match('HEAD', '/api/feed')?.key, 'GET /api/feed');
  });

  it('prefers literal segments to parameters, whatever the order they were declared in', () => {
    const table = new RouteTable();
    table.addAll('skills', [route('GET', '/api/skill-bundles/:id'), route('GET', '/api/skill-bundles/presets')], nothingReserved);
    assert.equal(table.match('GET', '/api/skill-bundles/presets')?.key, 'GET /api/skill-bundles/presets');
    assert.equal(table.match('GET', '/api/skill-bundles/other')?.key, 'GET /api/skill-bundles/:id');
    // Across owners too: the literal route of a later owner still wins.
    table.addAll('a', [route('GET', '/api/x/:id/y')], nothingReserved);
    table.addAll('b', [route('GET', '/api/x/latest/y')], nothingReserved);
    assert.equal(table.match('GET', '/api/x/latest/y')?.owner, 'b');
    assert.equal(table.match('GET', '/api/x/7/y')?.owner, 'a');
  });

  it('answers no match, never a throw, for malformed percent-encoding', () => {
    const table = new RouteTable();
    table.addAll('projects', [route('GET', '/api/projects/:id')], nothingReserved);
    assert.equal(table.match('GET', '/api/projects/%E0%A4%A'), undefined);
    assert.deepEqual(table.methodsFor('/api/projects/%E0%A4%A'), []);
  });

  it('lists the public methods a path allows (internal routes left out)', () => {
    const table = new RouteTable();
    table.addAll('tasks', [route('GET', '/api/tasks/:id'), route('PATCH', '/api/tasks/:id'), route('POST', '/api/tasks/:id', { internal: true })], nothingReserved);
    assert.deepEqual(table.methodsFor('/api/tasks/1').sort(), ['GET', 'PATCH']);
    assert.deepEqual(table.methodsFor('/api/nothing'), []);
  });

  it('refuses a route another owner or the kernel serves, adding none of the owner\'s routes', () => {
    const table = new RouteTable();
    table.addAll('first', [route('GET', '/api/things')], nothingReserved);
    assert.throws(() => table.addAll('second', [route('GET', '/api/other'), route('GET', '/api/things')], nothingReserved), (err: Error & { code?: string }) => {
      assert.equal(err.code, 'CONFLICT');
      assert.match(err.message, /second declares GET \/api\/things, which first already serves/);
      return true;
    });
    assert.equal(table.match('GET', '/api/other'), undefined);
    assert.throws(() => table.addAll('third', [route('GET', '/health')], (method, path) => method === 'GET' && path === '/health'), /which the kernel already serves/);
  });

  it('replaces an owner\'s routes when it declares them again, and forgets them when it is removed', () => {
    const table = new RouteTable();
    table.addAll('agents', [route('GET', '/api/agents'), route('POST', '/api/agents')], nothingReserved);
    table.addAll('agents', [route('GET', '/api/agents')], nothingReserved);
    assert.deepEqual(table.routesOf('agents'), ['GET /api/agents']);
    assert.equal(table.match('POST', '/api/agents'), undefined);
    assert.equal(table.all().length, 1);
    table.removeOwner('agents');
    assert.deepEqual(table.routesOf('agents'), []);
    assert.equal(table.match('GET', '/api/agents'), undefined);
  });

  it('finds a route by its prefix as a scan of every route would: any case, parameters in the prefix, after changes', () => {
    const table = new RouteTable();
    table.addAll('agents', [route('GET', '/api/agents'), route('GET', '/api/agents/:id')], nothingReserved);
    table.addAll('loose', [route('GET', '/api/:kind/count'), route('GET', '/hooks'), route('GET', '/:anything/agents/:id')], nothingReserved);
    assert.equal(table.match('GET', '/API/Agents')?.key, 'GET /api/agents', 'patterns match in any case');
    assert.equal(table.match('GET', '/api/agents/')?.key, 'GET /api/agents', 'a trailing slash matches');
    assert.equal(table.match('GET', '/api/agents/7')?.key, 'GET /api/agents/:id');
    assert.equal(table.match('GET', '/api/agents/count')?.key, 'GET /api/agents/:id', 'the more specific literal prefix wins, as before');
    assert.equal(table.match('GET', '/api/projects/count')?.key, 'GET /api/:kind/count', 'a parameter in the prefix matches any prefix');
    assert.equal(table.match('GET', '/x/agents/7')?.key, 'GET /:anything/agents/:id');
    assert.equal(table.match('GET', '/hooks')?.key, 'GET /hooks');
    assert.equal(table.match('GET', '/api'), undefined);
    table.addAll('projects', [route('GET', '/api/projects/count')], nothingReserved);
    assert.equal(table.match('GET', '/api/projects/count')?.owner, 'projects', 'a route added later is found under its prefix');
    table.removeOwner('agents');
    assert.equal(table.match('GET', '/api/agents/7')?.key, 'GET /:anything/agents/:id');
    assert.equal(table.match('GET', '/api/agents/count')?.key, 'GET /api/:kind/count');
  });

  it('remembers a path\'s match and hands each caller parameters of its own', () => {
    const table = new RouteTable();
    table.addAll('agents', [route('GET', '/api/agents/:id')], nothingReserved);
    const first = table.match('GET', '/api/agents/7')!;
    first.params.id = 'changed by a caller';
    assert.deepEqual(table.match('GET', '/api/agents/7')?.params, { id: '7' });
    assert.deepEqual(table.match('HEAD', '/api/agents/7')?.params, { id: '7' });
    assert.equal(table.match('GET', '/api/nothing'), undefined);
    table.addAll('nothing', [route('GET', '/api/nothing')], nothingReserved);
    assert.equal(table.match('GET', '/api/nothing')?.owner, 'nothing', 'a remembered miss is forgotten when routes change');
    const long = `/api/agents/${'x'.repeat(400)}`;
    assert.equal(table.match('GET', long)?.params.id, 'x'.repeat(400));
  });
});
