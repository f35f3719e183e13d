// A council of 5 whose members' provider answers after fixed, different delays (the fake Anthropic API
// tells them apart by their system prompts). Each stage's wall time (from the stored stage-change events)
// is compared with the slowest answer that stage waits for: every member's in responding, discussing and
// reviewing; the chair's in synthesizing. Target: wall time ≤ slowest + 100 ms per stage.
import { startFakeAnthropic } from '../fakes/anthropic.js';
import { startTestServer } from '../helpers/server.js';
import { reporter } from './lib/report.js';
import { median } from './lib/stats.js';

const report = reporter('councils');
const DELAYS_MS: Record<string, number> = { ALPHA: 150, BETA: 300, GAMMA: 450, DELTA: 600, EPSILON: 750 };
const CHAIR = 'BETA';
/** Launches a run (the first with cold runners); COUNCIL_LAUNCHES=12 gives a steadier median for an A/B. */
const LAUNCHES = Number(process.env.COUNCIL_LAUNCHES ?? 4);
const STAGES = ['responding', 'discussing', 'reviewing', 'synthesizing'] as const;

const anthropic = await startFakeAnthropic({
  apiKey: 'test',
  script: (req) => {
    const tag = /member (\w+)\./.exec(JSON.stringify(req.body.system ?? ''))?.[1] ?? 'ALPHA';
    const review = JSON.stringify(req.body.messages.at(-1)).includes('Review stage');
    return { text: review ? `${tag} reviewed.\nVOTE: APPROVE\nREASON: sound.` : `${tag} answers.`, delayMs: DELAYS_MS[tag] };
  },
});
const server = await startTestServer({ env: { ANTHROPIC_API_KEY: 'test', ANTHROPIC_BASE_URL: anthropic.url } });

async function call(method: string, path: string, body?: unknown): Promise<any> {
  const res = await server.api(method, path, body === undefined ? {} : { body });
  if (res.status >= 300) throw new Error(`${method} ${path} answered ${res.status}: ${res.text}`);
  return res.body;
}

try {
  const ids: Record<string, string> = {};
  for (const tag of Object.keys(DELAYS_MS)) ids[tag] = (await call('POST', '/api/agents', { name: tag, model: 'claude-sonnet-5-5', systemPrompt: `You are council member ${tag}.` })).id;
  const council = await call('POST', '/api/councils', { name: 'bench', members: Object.values(ids), chairId: ids[CHAIR], rounds: 1 });
  const overheads: Record<string, number[]> = Object.fromEntries(STAGES.map((s) => [s, []]));
  const walls: Record<string, number[]> = Object.fromEntries(STAGES.map((s) => [s, []]));
  for (let i = 0; i < LAUNCHES; i++) {
    const launch = await call('POST', `/api/councils/${council.id}/launch`, { prompt: `Question ${i}?` });
    for (let done = false; !done; ) {
      const stage = (await call('GET', `/api/council-launches/${launch.id}`)).stage;
      if (stage === 'failed' || stage === 'aborted') throw new Error(`the bench launch ended ${stage}`);
      done = stage === 'completed';
      if (!done) await new Promise((r) => setTimeout(r, 100));
    }
    const changes = (await call('GET', `/api/council-launches/${launch.id}/logs?limit=200`)).logs.filter((l: any) => l.type === 'council_stage_change');
    const at = (stage: string) => Date.parse(changes.find((c: any) => c.stage === stage).at);
    const next = ['discussing', 'reviewing', 'synthesizing', 'completed'];
    STAGES.forEach((stage, k) => {
      const wall = at(next[k]!) - at(stage);
      const slowest = stage === 'synthesizing' ? DELAYS_MS[CHAIR]! : Math.max(...Object.values(DELAYS_MS));
      walls[stage]!.push(wall);
      overheads[stage]!.push(wall - slowest);
    });
  }
  for (const stage of STAGES) {
    const slowest = stage === 'synthesizing' ? DELAYS_MS[CHAIR]! : Math.max(...Object.values(DELAYS_MS));
    report(`council of 5, ${stage}: wall time − slowest member's delay, median`, median(overheads[stage]!), 'ms', '≤ 100 ms', {
      wallMs: median(walls[stage]!), slowestDelayMs: slowest, maxOverheadMs: Math.max(...overheads[stage]!), launches: LAUNCHES,
      ...(stage === 'responding' ? { note: 'includes starting five sessions (runner processes)' } : {}),
    });
  }
} finally {
  await server.cleanup();
  await anthropic.close();
}
