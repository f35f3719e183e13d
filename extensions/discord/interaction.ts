// A Discord interaction as the bridge reads it, and who sent it from where. Its own module, so the
// command and component handlers do not import the route that dispatches to them.
export interface Interaction {
  id: string;
  application_id: string;
  type: number;
  token: string;
  channel_id?: string;
  channel?: { id: string; name?: string; type?: number; parent_id?: string | null };
  data?: { name?: string; custom_id?: string; options?: Array<{ name: string; value: unknown }> };
  member?: { user?: { id: string; username?: string } };
  user?: { id: string; username?: string };
  message?: { id: string };
}

export const who = (i: Interaction): string => i.member?.user?.username ?? i.user?.username ?? i.member?.user?.id ?? i.user?.id ?? 'someone';
export const channelOf = (i: Interaction): string | undefined => i.channel_id ?? i.channel?.id;
