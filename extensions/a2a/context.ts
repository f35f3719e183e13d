import { join } from 'node:path';
import type { ExtensionContext } from '../../sdk/extension.js';
import type { PushWatcher } from './push-delivery.js';

export const schema = (ctx: ExtensionContext, name: string): string => join(ctx.init.plugin.dir, 'schemas', name);

/** The extension's running state (what setup returns): the watches that push task updates. */
export interface A2AState {
  push: PushWatcher;
}
