// Executors of the node types that run inside the engine: no side effects outside the run, so
// running one again after a crash gives the same result.
import { validationError } from '../../protocol/errors.js';
import { evaluate, ExpressionError, parseExpression } from './expression.js';
import { loopBody } from './graph.js';
import { done, type Executor, type NodeEnv } from './node-env.js';
import type { NodeType } from './node-types.js';

function condition(text: string, env: NodeEnv): boolean {
  try {
    return Boolean(evaluate(parseExpression(text), env.scope));
  } catch (err) {
    if (err instanceof ExpressionError) throw validationError(`node "${env.node.id}": ${err.message}`);
    throw err;
  }
}

const waitFor = (env: NodeEnv, kind: string, seconds: unknown) => ({
  done: false as const,
  wakeAt: typeof seconds === 'number' ? env.clock.now() + seconds * 1000 : null,
  state: { waitingFor: kind },
});

export const localExecutors: Partial<Record<NodeType, Executor>> = {
  start: async (env) => done(env.scope.input),
  end: async (env) => done(env.input.output ?? null),
  parallel: async () => done({}),
  transform: async (env) => done(env.input.template),
  condition: async (env) => {
    const value = condition(String(env.input.expression), env);
    return done({ value }, value ? 'true' : 'false');
  },

  /** The outputs of the branches that met here, by node id. */
  join: async (env) => {
    const arrived = (env.state.arrived as string[] | undefined) ?? [];
    return done(Object.fromEntries(arrived.map((id) => [id, env.scope.nodes[id]?.output ?? null])));
  },

  /**
   * Counts arrivals: one from outside the body starts a new round at 1; one from the body goes on
   * counting. While the count is within maxIterations (and `while` holds) the body runs again.
   */
  loop: async (env) => {
    const from = env.state.fromNode;
    const continuing = typeof from === 'string' && loopBody(env.graph, env.node.id).has(from);
    const previous = env.scope.nodes[env.node.id]?.output as { iteration?: number } | undefined;
    const iteration = continuing ? (previous?.iteration ?? 0) + 1 : 1;
    const max = Number(env.input.maxIterations);
    const more = iteration <= max && (env.input.while === undefined || condition(String(env.input.while), env));
    return done({ iteration: more ? iteration : iteration - 1, done: !more }, more ? 'body' : 'exit');
  },

  delay: async (env) => {
    if (env.input.seconds !== undefined) return waitFor(env, 'delay', env.input.seconds);
    const until = Date.parse(String(env.input.until));
    if (Number.isNaN(until)) throw validationError(`node "${env.node.id}": until "${String(env.input.until)}" is not a date and time`);
    return { done: false, wakeAt: until, state: { waitingFor: 'delay' } };
  },
  webhook: async (env) => waitFor(env, 'webhook', env.input.timeoutSeconds),
  approval: async (env) => waitFor(env, 'approval', env.input.timeoutSeconds),
};
