// The tenant routes' questions to extensions. The kernel keeps tenants and their members; an extension
// that holds more about a tenant (plans and limits, say) declares [server.tenant_hooks] in its manifest:
// `profile` adds fields to the tenant as GET /api/tenants/me and a registration show it, `create` may
// refuse or take note of a new tenant (given the registration's body), `member` may refuse one more
// member. A refusal (any 4xx) is the answer to the client, unchanged. The kernel names no such extension.
import { RoostError } from '../../protocol/errors.js';
import { decodeAttachment } from '../../protocol/framing.js';
import type { Dispatcher } from '../http/dispatch.js';
import type { ExtensionRegistry } from '../host/registry.js';
import type { TenantHooks as Declared } from '../host/manifest.js';

/** Who the hooks are asked as: no key holder is ever this actor. */
const ACTOR = 'kernel:tenants';

export interface CreatedTenant {
  /** Fields added to the tenant's record in the registration's answer. */
  profile: Record<string, unknown>;
  /** Fields added to the tenant.register audit entry. */
  audit: Record<string, unknown>;
}

export class TenantHooks {
  constructor(private readonly registry: ExtensionRegistry, private readonly dispatcher: Dispatcher) {}

  async profile(tenantId: string): Promise<Record<string, unknown>> {
    const parts = await Promise.all(this.declared('profile').map((route) => this.ask(route, tenantId)));
    return Object.assign({}, ...parts.map(asObject));
  }

  /** Asked before the tenant is stored: a refusal leaves no tenant behind. */
  async create(tenantId: string, body: Record<string, unknown>, byOwner: boolean): Promise<CreatedTenant> {
    const answers = (await Promise.all(this.declared('create').map((route) => this.ask(route, tenantId, { tenantId, body, byOwner })))).map(asObject);
    return { profile: Object.assign({}, ...answers.map((a) => asObject(a.profile))), audit: Object.assign({}, ...answers.map((a) => asObject(a.audit))) };
  }

  /** Before a member is added to a tenant that has `current` members (keys that still work). */
  async member(tenantId: string, current: number): Promise<void> {
    for (const route of this.declared('member')) await this.ask(route, tenantId, { current });
  }

  private declared(hook: keyof Declared): string[] {
    return this.registry.list().filter((ext) => ext.state !== 'unloaded' && ext.manifest.server?.tenantHooks[hook]).map((ext) => ext.manifest.server!.tenantHooks[hook]!);
  }

  private async ask(route: string, tenantId: string, body?: unknown): Promise<unknown> {
    const space = route.indexOf(' ');
    const path = route.slice(space + 1).replace(':tenantId', encodeURIComponent(tenantId));
    const reply = await this.dispatcher.call({ method: route.slice(0, space), path, body: body ?? null, auth: { tenantId, role: 'owner', actor: ACTOR } });
    const answer = reply.attachment ? decodeAttachment(reply.attachment, reply.encoding === 'text' ? 'text' : 'json') : reply.body;
    if (reply.status < 300) return answer;
    const error = asObject(answer) as { error?: string; code?: string; details?: unknown };
    // A refusal is the client's answer; anything else is the extension's fault, not the client's.
    if (reply.status < 500) throw new RoostError(error.code ?? 'VALIDATION_ERROR', error.error ?? `refused (${reply.status})`, { status: reply.status, details: error.details });
    throw new RoostError(error.code ?? 'UPSTREAM_ERROR', error.error ?? `${route} answered ${reply.status}`, { status: reply.status, details: error.details });
  }
}

function asObject(value: unknown): Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : {};
}
