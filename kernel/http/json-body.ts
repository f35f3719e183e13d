// JSON request bodies. The body parser only reads the text (with the 1 MiB limit); this parses it,
// after checking the JSON limits, so a body nested thousands of levels deep is a 400 and never a
// stack overflow in whatever walks it later (schema checks, the protocol frame that carries it).
import type Koa from 'koa';
import { RoostError } from '../../protocol/errors.js';
import { checkJsonLimits, EDGE_JSON_LIMITS } from '../../protocol/json-limits.js';

const OBJECT_OR_ARRAY = /^[\x20\x09\x0a\x0d]*[[{]/;

/** Strict parsing: the top level is an object or an array; an empty body reads as {}. */
export function parseJsonBody(text: string): unknown {
  if (text === '') return {};
  if (!OBJECT_OR_ARRAY.test(text)) throw new RoostError('VALIDATION_ERROR', 'the body is not valid JSON: its top level must be an object or an array');
  checkJsonLimits(text, EDGE_JSON_LIMITS);
  try {
    return JSON.parse(text) as unknown;
  } catch {
    throw new RoostError('VALIDATION_ERROR', 'the body is not valid JSON');
  }
}

/** Replaces the raw text the body parser left in `ctx.request.body` with the parsed value. */
export function jsonBody(): Koa.Middleware {
  return async (ctx, next) => {
    const request = ctx.request as typeof ctx.request & { body?: unknown; rawBody?: string };
    if (typeof request.rawBody !== 'string') return next();
    request.body = parseJsonBody(request.rawBody);
    await next();
  };
}
