// The event bus: dot-separated topics; in patterns `*` matches one segment and `#` any number
// (including none). Every event carries the tenant it belongs to, or null for system events.

export interface BusEvent {
  topic: string;
  payload: unknown;
  tenantId: string | null;
  /** Who published it: "kernel" or an extension name. */
  source: string;
}

export type BusHandler = (event: BusEvent) => void;

interface Subscription {
  pattern: string;
  test: (topic: string) => boolean;
  handler: BusHandler;
}

export class EventBus {
  private readonly exact = new Map<string, Set<Subscription>>();
  private readonly wildcard = new Set<Subscription>();

  subscribe(pattern: string, handler: BusHandler): () => void {
    const sub: Subscription = { pattern, test: compilePattern(pattern), handler };
    const isWild = pattern.includes('*') || pattern.includes('#');
    if (isWild) this.wildcard.add(sub);
    else {
      let set = this.exact.get(pattern);
      if (!set) this.exact.set(pattern, (set = new Set()));
      set.add(sub);
    }
    return () => {
      if (isWild) this.wildcard.delete(sub);
      else {
        const set = this.exact.get(pattern);
        set?.delete(sub);
        if (set?.size === 0) this.exact.delete(pattern);
      }
    };
  }

  publish(event: BusEvent): void {
    const direct = this.exact.get(event.topic);
    if (direct) for (const sub of direct) deliver(sub, event);
    for (const sub of this.wildcard) if (sub.test(event.topic)) deliver(sub, event);
  }
}

function deliver(sub: Subscription, event: BusEvent): void {
  try {
    sub.handler(event);
  } catch (err) {
    process.stderr.write(`bus: a subscriber of ${sub.pattern} failed: ${(err as Error).message}\n`);
  }
}

export function compilePattern(pattern: string): (topic: string) => boolean {
  const segments = pattern.split('.');
  let source = '';
  segments.forEach((segment, i) => {
    const first = i === 0;
    const last = i === segments.length - 1;
    if (segment === '#') {
      // Leading `#` eats whole segments with their dot; elsewhere it eats dot-prefixed segments.
      if (first) source += last ? '.*' : '(?:[^.]+\\.)*';
      else source += '(?:\\.[^.]+)*';
      return;
    }
    const sep = first || segments[i - 1] === '#' && i === 1 ? '' : '\\.';
    source += sep + (segment === '*' ? '[^.]+' : segment.replace(/[|\\{}()[\]^$+?.]/g, '\\$&'));
  });
  const re = new RegExp(`^${source}$`);
  return (topic) => re.test(topic);
}
