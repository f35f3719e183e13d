// Upgrading a server whose kernel held the plans (the tenants table's plan, limits and billing_status
// columns) to one where the plans extension owns them: on its first start the extension takes every
// tenant's plan over, so no tenant loses its plan, overrides or billing state; a plan limit still answers
// 403 PLAN_LIMIT, now from plans.
import assert from 'node:assert/strict';
import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { sqliteFilesOnly, startTestServer, type TestServer } from '../helpers/server.js';
import { changeRows } from '../kernel/sqlite-file.js';
import { registerTenant } from './harness.js';

describe('plans taken over from the kernel', { skip: sqliteFilesOnly, timeout: 90_000 }, () => {
  let server: TestServer | undefined;
  after(() => server?.cleanup());

  it('keeps each tenant\'s plan, overrides and billing state across the upgrade', async () => {
    server = await startTestServer();
    const paying = await registerTenant(server, 'Paying');
    const plain = await registerTenant(server, 'Plain');
    const { dataDir } = server;
    await server.stop();
    // The kernel database as a server from before the plans extension left it, and no plans database yet.
    const kernelDb = join(dataDir, 'kernel.sqlite');
    await changeRows(kernelDb, "UPDATE tenants SET plan = 'pro', limits = '{\"agents\":1}', billing_status = 'past_due' WHERE id = ?", [paying.id]);
    await changeRows(kernelDb, "UPDATE tenants SET plan = 'enterprise' WHERE id = 'default'");
    await rm(join(dataDir, 'extensions', 'plans'), { recursive: true, force: true });

    server = await startTestServer({ dataDir });
    const me = (await server.api('GET', '/api/tenants/me', { key: paying.key })).body;
    assert.deepEqual([me.plan, me.billingStatus, me.limits.agents, me.limits.projects], ['pro', 'past_due', 1, 250], JSON.stringify(me));
    assert.deepEqual([(await server.api('GET', '/api/tenants/me', { key: plain.key })).body.plan], ['free']);
    assert.equal((await server.api('GET', '/api/tenants/me')).body.plan, 'enterprise', 'the server\'s own tenant');

    // The override taken over is a limit enforced by plans.
    const agent = (name: string) => server!.api('POST', '/api/agents', { key: paying.key, body: { name, model: 'claude-sonnet-5-5' } });
    assert.equal((await agent('one')).status, 201);
    const refused = await agent('two');
    assert.equal(refused.status, 403, refused.text);
    assert.deepEqual([refused.body.code, refused.body.details.plan, refused.body.details.limit, refused.body.details.allowed], ['PLAN_LIMIT', 'pro', 'agents', 1]);

    // Taken over once: a later change of the old columns means nothing.
    await server.stop();
    await changeRows(kernelDb, "UPDATE tenants SET plan = 'free', billing_status = 'none' WHERE id = ?", [paying.id]);
    server = await startTestServer({ dataDir });
    assert.equal((await server.api('GET', '/api/tenants/me', { key: paying.key })).body.plan, 'pro');
  });
});
