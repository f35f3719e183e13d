// JSON request bodies of the kernel's own routes: read as bytes within the body limit (raw-body.ts),
// decoded as UTF-8, then parsed after checking the JSON limits, so a body nested thousands of levels
// deep is a 400 and never a stack overflow in whatever walks it later (schema checks, the protocol
// frame that carries it).
import type Koa from 'koa';
import { RoostError } from '../../protocol/errors.js';
import { checkJsonLimits, EDGE_JSON_LIMITS } from '../../protocol/json-limits.js';
import { isMutating } from './methods.js';
import { readRawBody } from './raw-body.js';

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

declare module 'koa' {
  interface Request {
    /** A mutating request's JSON body on a kernel route, or {} when it has none (jsonBody). */
    body?: unknown;
  }
}

/** A leading byte order mark is dropped, as JSON parsers may (RFC 8259, 8.1). */
const utf8 = new TextDecoder('utf-8');

/**
 * `ctx.request.body` of a mutating request: its JSON, or {} when it has none. The body guard has
 * already refused any other media type, and a body past the limit.
 */
export function jsonBody(limitBytes: number): Koa.Middleware {
  return async (ctx, next) => {
    if (isMutating(ctx.method)) {
      const json = ctx.request.is('json', '+json') ? utf8.decode(await readRawBody(ctx.req, limitBytes)) : undefined;
      ctx.request.body = json === undefined ? {} : parseJsonBody(json);
    }
    await next();
  };
}
