// An extension's `[server.subscribe_when."<pattern>"]`: of the events a subscribed pattern matches, only
// those whose payload holds one of the listed values in each named field (a dotted path reaches into an
// object: `session.statusReason`) are delivered. The kernel checks it before it hands the event over,
// so an event the extension has no work for neither wakes a lazy extension nor costs its process a
// message (memory cares for agent deletions only; every agent created or renamed used to start it).

/** Payload field (or dotted path) → the values that let an event through. */
export type EventFilter = Record<string, string[]>;

export function passes(filter: EventFilter | undefined, payload: unknown): boolean {
  if (!filter) return true;
  if (payload === null || typeof payload !== 'object') return false;
  for (const [field, values] of Object.entries(filter)) {
    const value = field.split('.').reduce<unknown>((at, key) => (at !== null && typeof at === 'object' ? (at as Record<string, unknown>)[key] : undefined), payload);
    if (typeof value !== 'string' || !values.includes(value)) return false;
  }
  return true;
}
