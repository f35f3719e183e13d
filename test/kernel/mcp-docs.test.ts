// docs/mcp-clients.md as written: each `.mcp.json` example connects (its URL pointed at this test's
// server, `${VAR}` expanded the way Claude Code expands it) and lists the tools, and the SDK program
// runs as is and prints them.
import assert from 'node:assert/strict';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { execa } from 'execa';
import { repoRoot } from '../helpers/paths.js';
import { startTestServer, type TestServer } from '../helpers/server.js';

const DOC_URL = 'http://127.0.0.1:3000';
const OWNER_KEY = 'rk_mcp_docs_owner_key_0123456789abcdef';

/** The fenced blocks of one language in a markdown text. */
function fenced(markdown: string, language: string): string[] {
  return [...markdown.matchAll(new RegExp('^```' + language + '\\n([\\s\\S]*?)^```', 'gm'))].map((m) => m[1]!);
}

describe('docs/mcp-clients.md', () => {
  let server: TestServer;
  let doc: string;
  before(async () => {
    server = await startTestServer({ env: { ROOST_API_KEY: OWNER_KEY } });
    doc = await readFile(join(repoRoot, 'docs', 'mcp-clients.md'), 'utf8');
  });
  after(() => server.cleanup());

  it('connects with every .mcp.json example and lists the tools', async () => {
    const configs = fenced(doc, 'json').map((text) => JSON.parse(text) as { mcpServers: Record<string, { type: string; url: string; headers?: Record<string, string> }> });
    assert.equal(configs.length, 2);
    for (const config of configs) {
      const entry = config.mcpServers.roost!;
      assert.equal(entry.type, 'http');
      const headers = Object.fromEntries(Object.entries(entry.headers ?? {}).map(([name, value]) => [name, value.replace('${ROOST_API_KEY}', OWNER_KEY)]));
      const client = new Client({ name: 'docs-check', version: '1.0.0' });
      await client.connect(new StreamableHTTPClientTransport(new URL(entry.url.replace(DOC_URL, server.url)), { requestInit: { headers } }));
      try {
        const { tools } = await client.listTools();
        assert.ok(tools.some((tool) => tool.name === 'svc_list_projects'), JSON.stringify(tools.map((t) => t.name)));
      } finally {
        await client.close();
      }
    }
  });

  it('runs the SDK program as written', async () => {
    const [program] = fenced(doc, 'ts');
    assert.ok(program?.includes(`${DOC_URL}/mcp`));
    // Inside the package, so the program's imports resolve the way they do in a user's project.
    const dir = await mkdtemp(join(repoRoot, '.mcp-docs-'));
    try {
      const file = join(dir, 'client.ts');
      await writeFile(file, program!.replace(DOC_URL, server.url));
      const run = await execa(process.execPath, ['--import', 'tsx', file], { env: { ROOST_API_KEY: OWNER_KEY }, reject: false });
      assert.equal(run.exitCode, 0, run.stderr);
      assert.match(run.stdout, /^svc_list_projects$/m);
      assert.ok(Array.isArray(JSON.parse(run.stdout.trim().split('\n').at(-1)!)));
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
