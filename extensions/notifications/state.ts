// The extension's parts, built once at start-up (setup) and shared by routes and tools.
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

let state: State | undefined;

export async function startState(ctx: ExtensionContext): Promise<void> {
  const settings = loadSettings(ctx);
  const channels = new ChannelStore(ctx.db, await Sealer.forExtension(ctx.host));
  const deliveries = new DeliveryStore(ctx.db);
  const questions = new QuestionStore(ctx.db);
  const outbox = new Outbox(ctx, deliveries, channels, settings);
  const owner = new OwnerQuestions(ctx, questions, channels, deliveries, outbox);
  state = { settings, channels, deliveries, questions, outbox, owner, notifications: new Notifications(ctx.db, channels, deliveries, outbox) };
  outbox.start();
  owner.start();
}

export function stopState(): void {
  state?.outbox.stop();
  state?.owner.stop();
}

export function getState(): State {
  if (!state) throw new Error('the notifications extension has not started');
  return state;
}
