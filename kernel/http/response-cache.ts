// Answers the kernel keeps for the GET routes an extension declares cacheable ([server.cache]), so a
// repeated read costs no hop to the extension. An answer is a function of what the extension receives —
// route, method, path, query and the caller's tenant, role and actor — and of its stored state; the
// extension names the events that announce a change of that state. What a tenant has cached with an
// extension is forgotten when one of those events arrives for the tenant (or for no tenant), when any
// write is dispatched to the extension for the tenant, and wholly when the extension starts, is
// registered, unloaded or has its grants changed. A streamed answer is never kept, nor a read that was
// under way while something was forgotten (its answer may predate the change). One process only: with
// instances sharing PostgreSQL, an event from another instance arrives a moment after its write, so the
// cache is off there.
import type { RouteReply } from '../../protocol/messages.js';

/** Entries kept at most (oldest dropped first), and the largest answer kept. */
const MAX_ENTRIES = 4_096;
const MAX_ANSWER_BYTES = 256 * 1024;

interface Entry {
  group: string;
  reply: RouteReply;
}

export class ResponseCache {
  private readonly entries = new Map<string, Entry>();
  /** The keys cached per owner and tenant, so forgetting them needs no scan. */
  private readonly groups = new Map<string, Set<string>>();
  /** How many times each owner was wholly forgotten, and each owner and tenant: a read keeps its answer only if neither moved. */
  private readonly ownerForgotten = new Map<string, number>();
  private readonly groupForgotten = new Map<string, number>();

  constructor(readonly enabled: boolean) {}

  static key(owner: string, tenant: string, role: string, actor: string, method: string, path: string, querystring: string): string {
    return `${owner}\n${tenant}\n${role}\n${actor}\n${method} ${path}?${querystring}`;
  }

  get(key: string): RouteReply | undefined {
    return this.entries.get(key)?.reply;
  }

  /** Taken before the read is dispatched, handed back to keep(). Both counts only grow, so their sum moves when either does. */
  generation(owner: string, tenant: string): number {
    return (this.ownerForgotten.get(owner) ?? 0) + (this.groupForgotten.get(`${owner}\n${tenant}`) ?? 0);
  }

  keep(key: string, owner: string, tenant: string, generation: number, reply: RouteReply): void {
    if (reply.status !== 200 || reply.stream === true || this.generation(owner, tenant) !== generation || size(reply) > MAX_ANSWER_BYTES) return;
    if (this.entries.size >= MAX_ENTRIES) this.drop(this.entries.keys().next().value!);
    const group = `${owner}\n${tenant}`;
    this.entries.set(key, { group, reply });
    let keys = this.groups.get(group);
    if (!keys) this.groups.set(group, (keys = new Set()));
    keys.add(key);
  }

  /** Forgets what `tenant` has cached with `owner`; a null tenant (a system event) forgets every tenant's. */
  forget(owner: string, tenant: string | null): void {
    if (tenant === null) return this.forgetOwner(owner);
    const group = `${owner}\n${tenant}`;
    this.groupForgotten.set(group, (this.groupForgotten.get(group) ?? 0) + 1);
    for (const key of this.groups.get(group) ?? []) this.entries.delete(key);
    this.groups.delete(group);
  }

  forgetOwner(owner: string): void {
    this.ownerForgotten.set(owner, (this.ownerForgotten.get(owner) ?? 0) + 1);
    for (const [group, keys] of this.groups) {
      if (!group.startsWith(`${owner}\n`)) continue;
      for (const key of keys) this.entries.delete(key);
      this.groups.delete(group);
    }
  }

  private drop(key: string): void {
    const entry = this.entries.get(key);
    if (!entry) return;
    this.entries.delete(key);
    this.groups.get(entry.group)?.delete(key);
  }
}

function size(reply: RouteReply): number {
  if (typeof reply.attachment === 'string') return reply.attachment.length;
  if (reply.attachment) return reply.attachment.byteLength;
  return reply.body === undefined ? 0 : JSON.stringify(reply.body).length;
}
