// The extension's parts, built once at start-up: what setup returns, handed to every route and tool after ctx.
import type { ExtensionContext } from '../../sdk/extension.js';
import { Sealer } from '../../sdk/sealed.js';
import { ChannelStore } from './channels.js';
import { loadSettings, type Settings } from './config.js';
import { DeliveryStore } from './deliveries.js';
import { Notifications } from './notify.js';
import { Outbox } from './outbox.js';
import { OwnerQuestions } from './owner-questions.js';
import { QuestionStore } from './questions.js';

export interface State {
  settings: Settings;
  channels: ChannelStore;
  deliveries: DeliveryStore;
  questions: QuestionStore;
  notifications: Notifications;
  owner: OwnerQuestions;
  outbox: Outbox;
}

export async function startState(ctx: ExtensionContext): Promise<State> {
  const settings = loadSettings(ctx);
  const channels = new ChannelStore(ctx.db, await Sealer.forExtension(ctx.host));
  const deliveries = new DeliveryStore(ctx.db);
  const questions = new QuestionStore(ctx.db);
  const outbox = new Outbox(ctx, deliveries, channels, settings);
  const owner = new OwnerQuestions(ctx, questions, channels, deliveries, outbox);
  outbox.start();
  owner.start();
  return { settings, channels, deliveries, questions, outbox, owner, notifications: new Notifications(ctx.db, channels, deliveries, outbox) };
}

export function stopState(_ctx: ExtensionContext, state: State): void {
  state.outbox.stop();
  state.owner.stop();
}
