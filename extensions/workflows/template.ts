// `{{path}}` templating over the run context: only paths (the same paths conditions read), never code.
// A string that is nothing but one placeholder yields the value itself (an object stays an object);
// elsewhere values are inserted as text (objects as JSON, missing values as nothing).
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

export function render(template: unknown, scope: unknown): unknown {
  if (typeof template === 'string') return renderString(template, scope);
  if (Array.isArray(template)) return template.map((item) => render(item, scope));
  if (template !== null && typeof template === 'object') {
    return Object.fromEntries(Object.entries(template).map(([k, v]) => [k, render(v, scope)]));
  }
  return template;
}

function renderString(template: string, scope: unknown): unknown {
  const whole = /^\{\{\s*([^{}]*?)\s*\}\}$/.exec(template);
  if (whole) return valueAt(whole[1]!, scope) ?? null;
  return template.replace(PLACEHOLDER, (_m, path: string) => {
    const value = valueAt(path, scope);
    if (value === undefined || value === null) return '';
    return typeof value === 'object' ? JSON.stringify(value) : String(value);
  });
}

function valueAt(path: string, scope: unknown): unknown {
  const expr = parseExpression(path);
  return expr.kind === 'path' ? readPath(scope, expr.segments) : undefined;
}

/** A template rendered to text (prompts, descriptions). */
export function renderText(template: string, scope: unknown): string {
  const value = render(template, scope);
  return typeof value === 'string' ? value : value === null || value === undefined ? '' : JSON.stringify(value);
}
