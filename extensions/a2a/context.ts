import { join } from 'node:path';
import type { ExtensionContext } from '../_shared/extension.js';

export const schema = (ctx: ExtensionContext, name: string): string => join(ctx.init.plugin.dir, 'schemas', name);
