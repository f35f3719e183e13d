// `{{path}}` templating over the run context: only paths (the same paths conditions read), never code.
// A string that is nothing but one placeholder yields the value itself (an object stays an object);
// elsewhere values are inserted as text (objects as JSON, missing values as nothing).
import { RoostError } from '../../protocol/errors.js';
import { ExpressionError, parseExpression, readPath } from './expression.js';

const PLACEHOLDER = /\{\{\s*([^{}]*?)\s*\}\}/g;
const MAX_DEPTH = 32;

/** The paths of every placeholder in a template (any JSON value); throws ExpressionError on a bad one. */
export function templatePaths(template: unknown, depth = 0): Array<Array<string | number>> {
  if (depth > MAX_DEPTH) throw new ExpressionError(`template nested deeper than ${MAX_DEPTH} levels`);
  if (typeof template === 'string') {
    return [...template.matchAll(PLACEHOLDER)].map((m) => {
      const expr = parseExpression(m[1]!);
      if (expr.kind !== 'path') throw new ExpressionError(`"{{${m[1]}}}" is not a path: templates only insert values, like {{input.name}}`);
      return expr.segments;
    });
  }
  if (Array.isArray(template)) return template.flatMap((item) => templatePaths(item, depth + 1));
  if (template !== null && typeof template === 'object') return Object.values(template).flatMap((v) => templatePaths(v, depth + 1));
  return [];
}

/** Bytes a node's rendered input or its output may take (JSON); over it the node fails with DATA_TOO_LARGE. */
export const MAX_NODE_DATA_BYTES = 1024 * 1024;

/** What rendering may still produce; a template whose placeholders multiply a value stops at the limit. */
class Budget {
  constructor(private left: number, private readonly limit: number) {}
  charge(bytes: number): void {
    this.left -= bytes;
    if (this.left < 0) throw dataTooLarge(`the rendered template is over ${this.limit} bytes`);
  }
}

export const dataTooLarge = (message: string) => new RoostError('DATA_TOO_LARGE', `${message} (the limit of a node's input or output; a loop that grows a value stops here)`, { status: 413 });

/** Renders `template` over `scope`; throws DATA_TOO_LARGE as soon as the result passes `limit` bytes. */
export function render(template: unknown, scope: unknown, limit = MAX_NODE_DATA_BYTES): unknown {
  return renderValue(template, scope, new Budget(limit, limit));
}

function renderValue(template: unknown, scope: unknown, budget: Budget): unknown {
  if (typeof template === 'string') return renderString(template, scope, budget);
  if (Array.isArray(template)) return template.map((item) => renderValue(item, scope, budget));
  if (template !== null && typeof template === 'object') {
    return Object.fromEntries(Object.entries(template).map(([k, v]) => [k, renderValue(v, scope, budget)]));
  }
  return template;
}

function renderString(template: string, scope: unknown, budget: Budget): unknown {
  budget.charge(template.length);
  const whole = /^\{\{\s*([^{}]*?)\s*\}\}$/.exec(template);
  if (whole) {
    const value = valueAt(whole[1]!, scope) ?? null;
    budget.charge(typeof value === 'string' ? value.length : JSON.stringify(value).length);
    return value;
  }
  return template.replace(PLACEHOLDER, (_m, path: string) => {
    const value = valueAt(path, scope);
    const text = value === undefined || value === null ? '' : typeof value === 'object' ? JSON.stringify(value) : String(value);
    budget.charge(text.length);
    return text;
  });
}

function valueAt(path: string, scope: unknown): unknown {
  const expr = parseExpression(path);
  return expr.kind === 'path' ? readPath(scope, expr.segments) : undefined;
}
