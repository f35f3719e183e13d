// An extension's `[server.subscribe_when."<pattern>"]`: of the events a subscribed pattern matches, only
// those whose payload holds one of the listed values in each named field (a dotted path reaches into an
// object: `session.statusReason`) are delivered. The kernel checks it before it hands the event over,
// so an event the extension has no work for neither wakes a lazy extension nor costs its process a
// message (memory cares for agent deletions only; every agent created or renamed used to start it).

/** Payload field (or dotted path) → the values that let an event through. */
export type EventFilter = Record<string, string[]>;

/** Each filter as (path, values) pairs, made once: every event of a subscribed pattern is checked. */
const compiled = new WeakMap<EventFilter, Array<[path: string[], values: Set<string>]>>();

export function passes(filter: EventFilter | undefined, payload: unknown): boolean {
  if (!filter) return true;
  if (payload === null || typeof payload !== 'object') return false;
  let checks = compiled.get(filter);
  if (!checks) compiled.set(filter, (checks = Object.entries(filter).map(([field, values]) => [field.split('.'), new Set(values)])));
  for (const [path, values] of checks) {
    let value: unknown = payload;
    for (const key of path) value = value !== null && typeof value === 'object' ? (value as Record<string, unknown>)[key] : undefined;
    if (typeof value !== 'string' || !values.has(value)) return false;
  }
  return true;
}
