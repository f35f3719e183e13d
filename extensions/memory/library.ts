// The tenant's shared library: named notes every agent of the tenant can write, read, list and delete,
// sealed like memories, with tags found through the same blind index.
import { notFound } from '../../protocol/errors.js';
import type { ExtensionContext } from '../../sdk/extension.js';
import type { Keyring } from './keyring.js';
import { LIBRARY_OWNER, Shelf, type ShelfRecord } from './shelf.js';

export interface LibraryEntry {
  name: string;
  content: string;
  tags: string[];
  authorAgentId: string | null;
  createdAt: string;
  updatedAt: string;
  score?: number;
}

const shelfOf = async (ctx: ExtensionContext, keyring: Keyring) => new Shelf(ctx, await keyring.sealer(), 'library_entries');
const ownerOf = (tenantId: string) => ({ tenantId, ownerId: LIBRARY_OWNER });

function toEntry(record: ShelfRecord, withContent: boolean): LibraryEntry | Omit<LibraryEntry, 'content'> {
  const entry = {
    name: record.name,
    tags: (record.extra.tags as string[] | undefined) ?? [],
    authorAgentId: (record.extra.authorAgentId as string | null | undefined) ?? null,
    createdAt: record.createdAt,
    updatedAt: record.updatedAt,
    ...(record.rank === undefined ? {} : { score: record.rank }),
  };
  return withContent ? { ...entry, content: record.content } : entry;
}

export async function writeEntry(ctx: ExtensionContext, keyring: Keyring, tenantId: string, authorAgentId: string | null, input: { name: string; content: string; tags?: string[] }) {
  const tags = [...new Set(input.tags ?? [])];
  const { record, created } = await (await shelfOf(ctx, keyring)).put(ownerOf(tenantId), input.name, input.content, { tags, authorAgentId }, tags);
  return { entry: toEntry(record, false), created };
}

export async function readEntry(ctx: ExtensionContext, keyring: Keyring, tenantId: string, name: string) {
  const record = await (await shelfOf(ctx, keyring)).get(ownerOf(tenantId), name, true);
  if (!record) throw notFound(`library entry "${name}"`);
  return toEntry(record, true);
}

/** Entries without their contents (read one for that): by tag and keyword query, or the latest. */
export async function listEntries(ctx: ExtensionContext, keyring: Keyring, tenantId: string, find: { tag?: string; query?: string; limit: number; offset: number }) {
  const { records, hasMore } = await (await shelfOf(ctx, keyring)).find(ownerOf(tenantId), find);
  return { entries: records.map((r) => toEntry(r, false)), hasMore };
}

export async function deleteEntry(ctx: ExtensionContext, keyring: Keyring, tenantId: string, name: string): Promise<void> {
  if (!(await (await shelfOf(ctx, keyring)).remove(ownerOf(tenantId), name))) throw notFound(`library entry "${name}"`);
}
