// ROOST_CHECK_RESPONSES=1 (the test suite's servers run with it): every success body an extension route
// answers is validated against the response schema its manifest declares — the schema GET
// /api/openapi.json publishes — so every test that calls a route also keeps the document true. A body
// that does not match becomes a 500 RESPONSE_MISMATCH naming the route and the fields; nothing is checked,
// and nothing costs, without the setting.
import type { ValidateFunction } from 'ajv';
import { RoostError } from '../../protocol/errors.js';
import { decodeAttachment } from '../../protocol/framing.js';
import type { RouteReply } from '../../protocol/messages.js';
import { describeErrors, schemaValidator } from '../../protocol/validate.js';
import { precompiledResponseValidator } from './response-validators.js';
import type { RouteMatch } from './route-table.js';

const validators = new WeakMap<object, ValidateFunction>();

/** Throws RESPONSE_MISMATCH when a declared success body does not match its schema. */
export function checkResponse(route: RouteMatch, reply: RouteReply): void {
  const doc = route.decl.doc;
  if (!doc?.response || reply.status !== (doc.status ?? 200)) return;
  let validate = validators.get(doc.response);
  if (!validate) validators.set(doc.response, (validate = precompiledResponseValidator(route.owner, doc.response) ?? schemaValidator(doc.response)));
  const body = reply.attachment !== undefined ? decodeAttachment(reply.attachment, reply.encoding ?? 'json') : reply.body;
  if (validate(body)) return;
  throw new RoostError('RESPONSE_MISMATCH', `${route.owner} answered ${route.key} with a body its declared response schema refuses: ${describeErrors(validate.errors ?? [], 'response')}`, { status: 500 });
}
