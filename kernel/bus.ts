// The event bus: dot-separated topics; in patterns `*` matches one segment and `#` any number
// (including none). Every event carries the tenant it belongs to, or null for system events.
// With instances sharing a PostgreSQL database a link (bus-link.ts) forwards what is published here to
// the others and hands their events to `receive`: each event is delivered once on every instance.
import { createLog, type Log } from './log.js';

export interface BusEvent {
  topic: string;
  payload: unknown;
  tenantId: string | null;
  /** Who published it: "kernel" or an extension name. */
  source: string;
  /** Set on events published on another instance (and delivered here by the link). */
  remote?: true;
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
  private link: ((event: BusEvent) => void) | undefined;

  constructor(private readonly log: Log = createLog('text')) {}

  /** Events published here are also handed to `forward` (for the other instances). */
  linkTo(forward: ((event: BusEvent) => void) | undefined): void {
    this.link = forward;
  }

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
    this.deliverHere(event);
    this.link?.(event);
  }

  /** An event another instance published: delivered to this instance's subscribers only. */
  receive(event: Omit<BusEvent, 'remote'>): void {
    this.deliverHere({ ...event, remote: true });
  }

  private deliverHere(event: BusEvent): void {
    const direct = this.exact.get(event.topic);
    if (direct) for (const sub of direct) deliver(this.log, sub, event);
    for (const sub of this.wildcard) if (sub.test(event.topic)) deliver(this.log, sub, event);
  }
}

function deliver(log: Log, sub: Subscription, event: BusEvent): void {
  try {
    sub.handler(event);
  } catch (err) {
    log('error', `bus: a subscriber of ${sub.pattern} failed: ${(err as Error).message}`);
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
