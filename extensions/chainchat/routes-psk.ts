// PSK contacts and the exchange URI. URIs carry secret keys: only operators and owners read them.
import { notFound, RoostError } from '../../protocol/errors.js';
import { validate } from '../../protocol/validate.js';
import type { RouteHandler, RouteRequest } from '../../sdk/extension.js';
import { created, noContent, ok, page } from '../../sdk/http.js';
import { requireRole } from '../../sdk/roles.js';
import { mustBeAddress } from './addresses.js';
import type { Contact } from './contacts.js';
import { formatPskUri, qrImages } from './psk-uri.js';
import type { Psk } from './psk-keys.js';
import { schema } from './routes.js';
import type { State } from './state.js';

async function uriFor(s: State, req: RouteRequest, key: Psk, label: string): Promise<string> {
  const account = await s.accounts.of(req.auth.tenantId);
  return formatPskUri({ addr: account.address, psk: key.psk, label, network: account.network });
}

async function mustGetContact(s: State, req: RouteRequest): Promise<Contact> {
  const contact = await s.contacts.get(req.auth.tenantId, req.params.id!);
  if (!contact) throw notFound(`PSK contact ${req.params.id}`);
  return contact;
}

/** Reading the exchange URI never sets chainchat up; making or rotating one does. */
const notSetUp = () => new RoostError('NOT_FOUND', 'chainchat is not set up for this tenant: an operator makes its exchange URI (POST /api/chainchat/psk-exchange) or a PSK contact, or the owner chooses its network (POST /api/chainchat/network)');

const exchangeView = async (s: State, req: RouteRequest, key: Psk, extra: Record<string, unknown> = {}) => ({
  uri: await uriFor(s, req, key, 'Roost'), keyId: key.keyId, createdAt: key.createdAt, ...extra,
});

export const pskRoutes: Record<string, RouteHandler<State>> = {
  async 'GET /api/chainchat/psk-exchange'(req, _ctx, s) {
    requireRole(req.auth, 'operator', 'reading the PSK exchange URI');
    if (!(await s.accounts.find(req.auth.tenantId))) throw notSetUp();
    return ok(await exchangeView(s, req, await s.keys.currentExchange(req.auth.tenantId)));
  },

  async 'POST /api/chainchat/psk-exchange'(req, ctx, s) {
    requireRole(req.auth, 'operator', 'rotating the PSK exchange key');
    validate(schema(ctx, 'exchange-rotate.json'), req.body ?? {});
    await s.keys.currentExchange(req.auth.tenantId); // so there is one to rotate out
    const { current, previousExpiresAt } = await s.keys.rotateExchange(req.auth.tenantId, s.config.graceSeconds);
    ctx.host.audit('chainchat.psk_rotated', `tenant:${req.auth.tenantId}`, { keyId: current.keyId, previousExpiresAt });
    return created(await exchangeView(s, req, current, { previousExpiresAt }));
  },

  async 'GET /api/chainchat/psk-contacts'(req, _ctx, s) {
    return ok(await s.contacts.list(req.auth.tenantId, page(req.query)));
  },

  async 'POST /api/chainchat/psk-contacts'(req, ctx, s) {
    requireRole(req.auth, 'operator', 'creating a PSK contact');
    const body = validate<{ name: string; address?: string }>(schema(ctx, 'contact-create.json'), req.body);
    if (body.address !== undefined) mustBeAddress(body.address, 'body.address');
    const contact = await ctx.db.transaction(async (trx) => {
      const made = await s.contacts.create(req.auth.tenantId, body, trx);
      await s.keys.create(req.auth.tenantId, made.id, trx);
      return made;
    });
    ctx.host.audit('chainchat.contact_created', `psk-contact:${contact.id}`, { name: contact.name });
    return created(contact);
  },

  async 'PATCH /api/chainchat/psk-contacts/:id'(req, ctx, s) {
    requireRole(req.auth, 'operator', 'renaming a PSK contact');
    const { name } = validate<{ name: string }>(schema(ctx, 'contact-rename.json'), req.body);
    await mustGetContact(s, req);
    return ok(await s.contacts.rename(req.auth.tenantId, req.params.id!, name));
  },

  async 'DELETE /api/chainchat/psk-contacts/:id'(req, ctx, s) {
    requireRole(req.auth, 'operator', 'deleting a PSK contact');
    const contact = await mustGetContact(s, req);
    await s.contacts.remove(req.auth.tenantId, contact.id);
    ctx.host.audit('chainchat.contact_deleted', `psk-contact:${contact.id}`, { name: contact.name });
    return noContent();
  },

  async 'GET /api/chainchat/psk-contacts/:id/qr'(req, _ctx, s) {
    requireRole(req.auth, 'operator', "reading a PSK contact's exchange URI");
    const contact = await mustGetContact(s, req);
    const key = (await s.keys.ofContact(req.auth.tenantId, contact.id))!;
    const uri = await uriFor(s, req, key, contact.name);
    return ok({ contactId: contact.id, uri, ...(await qrImages(uri)) });
  },
};
