// A fetched A2A agent card, checked before anyone relies on it: the fields a caller uses must be there
// with the right types; the rest of the card is passed on as it came.
import { RoostError } from '../../protocol/errors.js';

export interface AgentCard {
  name: string;
  description: string;
  url?: string;
  preferredTransport?: string;
  additionalInterfaces?: Array<{ url: string; transport: string }>;
  /** A2A 1.0: the interfaces, preferred first. */
  supportedInterfaces?: Array<{ url: string; protocolBinding: string; protocolVersion?: string }>;
  protocolVersion?: string;
  version?: string;
  skills: Array<{ id: string; name: string; description?: string; tags?: string[] }>;
  [field: string]: unknown;
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

export function checkCard(value: unknown, source: string): AgentCard {
  const bad = (why: string) => new RoostError('UPSTREAM_ERROR', `${source} is not an A2A agent card: ${why}`, { status: 502 });
  if (!isObject(value)) throw bad('it is not a JSON object');
  if (typeof value.name !== 'string' || value.name === '' || value.name.length > 200) throw bad('name must be a string of 1 to 200 characters');
  if (value.description !== undefined && typeof value.description !== 'string') throw bad('description must be a string');
  for (const field of ['url', 'preferredTransport', 'protocolVersion', 'version'] as const) {
    if (value[field] !== undefined && typeof value[field] !== 'string') throw bad(`${field} must be a string`);
  }
  const interfaces = value.additionalInterfaces;
  if (interfaces !== undefined && !(Array.isArray(interfaces) && interfaces.every((i) => isObject(i) && typeof i.url === 'string' && typeof i.transport === 'string'))) {
    throw bad('additionalInterfaces must be a list of {url, transport} strings');
  }
  const supported = value.supportedInterfaces;
  const isInterface = (i: unknown) => isObject(i) && typeof i.url === 'string' && typeof i.protocolBinding === 'string' && (i.protocolVersion === undefined || typeof i.protocolVersion === 'string');
  if (supported !== undefined && !(Array.isArray(supported) && supported.every(isInterface))) {
    throw bad('supportedInterfaces must be a list of {url, protocolBinding, protocolVersion} strings');
  }
  if (!Array.isArray(value.skills)) throw bad('skills must be a list');
  value.skills.forEach((skill, i) => {
    if (!isObject(skill) || typeof skill.id !== 'string' || typeof skill.name !== 'string') throw bad(`skills[${i}] needs a string id and name`);
    if (skill.tags !== undefined && !(Array.isArray(skill.tags) && skill.tags.every((t) => typeof t === 'string'))) throw bad(`skills[${i}].tags must be a list of strings`);
  });
  return { ...value, description: (value.description as string | undefined) ?? '' } as AgentCard;
}
