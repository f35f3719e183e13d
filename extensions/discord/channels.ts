// What the bridge needs to know of a channel a Gateway message arrived in, which the message itself does
// not say: whether it is a thread, its parent channel (for the agent mapping and voice) and who started
// it (the bot's own threads are answered without a mention). Asked once per channel (GET /channels/{id})
// and kept; a lookup that fails counts as a plain channel and is asked again next time.
import { ChannelType, Routes, type APIChannel } from 'discord-api-types/v10';
import type { DiscordRest } from './rest.js';

export interface ChannelFacts {
  thread: boolean;
  parentId: string | undefined;
  ownerId: string | undefined;
}

const THREADS = new Set<number>([ChannelType.AnnouncementThread, ChannelType.PublicThread, ChannelType.PrivateThread]);
/** Channels remembered; the oldest is forgotten first. */
const KEPT = 2_000;

export class ChannelDirectory {
  private readonly known = new Map<string, ChannelFacts>();

  constructor(private readonly rest: DiscordRest) {}

  async facts(botToken: string, channelId: string, onError: (err: Error) => void): Promise<ChannelFacts> {
    const known = this.known.get(channelId);
    if (known) return known;
    let channel: APIChannel;
    try {
      channel = await this.rest.get<APIChannel>(Routes.channel(channelId), botToken);
    } catch (err) {
      onError(err as Error);
      return { thread: false, parentId: undefined, ownerId: undefined };
    }
    const thread = THREADS.has(channel.type);
    const facts: ChannelFacts = { thread, parentId: 'parent_id' in channel ? (channel.parent_id ?? undefined) : undefined, ownerId: thread && 'owner_id' in channel ? channel.owner_id : undefined };
    if (this.known.size >= KEPT) this.known.delete(this.known.keys().next().value!);
    this.known.set(channelId, facts);
    return facts;
  }
}
