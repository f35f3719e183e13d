import { join } from 'node:path';
import type { ExtensionContext } from '../../sdk/extension.js';

export const schema = (ctx: ExtensionContext, name: string): string => join(ctx.init.plugin.dir, 'schemas', name);
