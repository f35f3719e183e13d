// A real server wired to the fake Anthropic API, whose replies depend on which council member asks (each
// member agent's system prompt carries its tag) and on the stage (read from the question it was sent).
import assert from 'node:assert/strict';
import { after, before } from 'node:test';
import type { AnthropicReply } from '../fakes/anthropic.js';
import type { RecordedRequest } from '../fakes/provider-http.js';
import { waitFor } from '../helpers/wait.js';
import { startHarness, type Harness, type HarnessOptions } from '../sessions/harness.js';

export type Stage = 'responding' | 'discussing' | 'reviewing' | 'synthesizing' | 'chat';
/** A test's own reply for a member in a stage; undefined keeps the default. */
export type Override = (tag: string, stage: Stage) => AnthropicReply | string | undefined;

export function stageOf(req: RecordedRequest): Stage {
  const messages = req.body.messages as Array<{ role: string; content: unknown }>;
  const last = JSON.stringify([...messages].reverse().find((m) => m.role === 'user')?.content ?? '');
  if (last.includes('Discussion round')) return 'discussing';
  if (last.includes('Review stage')) return 'reviewing';
  if (last.includes('Synthesis stage')) return 'synthesizing';
  if (last.includes('members of the council')) return 'responding';
  return 'chat';
}

export const tagOf = (req: RecordedRequest) => /member (\w+)\./.exec(JSON.stringify(req.body.system ?? ''))?.[1] ?? 'unknown';

export function defaultReply(tag: string, stage: Stage): string {
  switch (stage) {
    case 'responding': return `${tag} thinks the answer is 42.`;
    case 'discussing': return `${tag} has read the others and still says 42.`;
    case 'reviewing': return `${tag} reviewed the answers.\nVOTE: APPROVE\nREASON: ${tag} finds 42 well argued.`;
    case 'synthesizing': return `The council, written by ${tag}: the answer is 42.`;
    case 'chat': return `${tag} answers the follow-up.`;
  }
}

export class CouncilFixture {
  override: Override = () => undefined;

  constructor(readonly h: Harness) {
    h.anthropic.setScript((req) => {
      const tag = tagOf(req);
      const stage = stageOf(req);
      return this.override(tag, stage) ?? defaultReply(tag, stage);
    });
  }

  get server() {
    return this.h.server;
  }

  /** Agents tagged ALPHA, BETA… (their system prompts name them, so the fake can tell them apart). */
  async members(tags: string[], key?: string): Promise<string[]> {
    const ids: string[] = [];
    for (const tag of tags) ids.push((await this.h.agent({ systemPrompt: `You are council member ${tag}.` }, key)).id);
    return ids;
  }

  async council(body: Record<string, unknown>, key?: string): Promise<any> {
    const res = await this.server.api('POST', '/api/councils', { key, body: { name: 'the council', ...body } });
    assert.equal(res.status, 201, res.text);
    return res.body;
  }

  async launch(councilId: string, body: Record<string, unknown> = {}, key?: string): Promise<any> {
    const res = await this.server.api('POST', `/api/councils/${councilId}/launch`, { key, body: { prompt: 'What is the answer?', ...body } });
    assert.equal(res.status, 201, res.text);
    return res.body;
  }

  async get(launchId: string, key?: string): Promise<any> {
    const res = await this.server.api('GET', `/api/council-launches/${launchId}`, { key });
    assert.equal(res.status, 200, res.text);
    return res.body;
  }

  /** Polls the launch until `done` holds for it. */
  until(launchId: string, what: string, done: (launch: any) => boolean, timeoutMs = 30_000, key?: string): Promise<any> {
    return waitFor(what, async () => {
      const launch = await this.get(launchId, key);
      return done(launch) ? launch : undefined;
    }, timeoutMs);
  }

  async logs(launchId: string): Promise<any[]> {
    return (await this.server.api('GET', `/api/council-launches/${launchId}/logs?limit=200`)).body.logs;
  }

  async messages(launchId: string): Promise<any[]> {
    return (await this.server.api('GET', `/api/council-launches/${launchId}/discussion-messages?limit=200`)).body.messages;
  }

  async post(path: string, body: unknown = {}, key?: string) {
    return this.server.api('POST', path, { key, body });
  }
}

export async function startCouncils(options: HarnessOptions = {}): Promise<CouncilFixture> {
  return new CouncilFixture(await startHarness(options));
}

/** One server per test file: started before its tests with members ALPHA, BETA and GAMMA, stopped after. */
export function councilSuite(): { f: CouncilFixture; ids: string[] } {
  const suite = {} as { f: CouncilFixture; ids: string[] };
  before(async () => {
    suite.f = await startCouncils();
    suite.ids = await suite.f.members(['ALPHA', 'BETA', 'GAMMA']);
  });
  after(() => suite.f.h.close());
  return suite;
}
