// fledge-v1 (the protocol of fledge plugins) as a dialect of cli-v1. The differences:
// - init also carries `fledge: {version}` (the host's version: roost answers as the fledge it replaces),
//   and its capabilities always name exec, store and metadata (false when not granted), as fledge's do;
// - `store` may come without an id: fire and forget, nothing is answered;
// - `select.default` is the index of an option, not the option;
// - `multi_select {options, defaults?: indices}` answers the chosen options as a list;
// - log level `trace` is cli-v1's `debug`;
// - `cancel.reason` is one of fledge's words: "user_interrupt" or "timeout".
import { RoostError } from '../../../protocol/errors.js';
import type { Dialect } from './dialect.js';

/** Validation needs an id on `store`; the peer already knows the original had none and answers nothing. */
const FIRE_AND_FORGET_ID = 'fledge-store';

export const fledgeDialect: Dialect = {
  init: (base) => ({
    ...base,
    capabilities: { exec: false, store: false, metadata: false, ...base.capabilities },
    fledge: { version: base.host.version },
  }),
  extraTypes: ['multi_select'],
  cancelReason: (cause) => (cause === 'timeout' ? 'timeout' : 'user_interrupt'),
  translate(type, message) {
    switch (type) {
      case 'store':
        return typeof message.id === 'string' ? message : { ...message, id: FIRE_AND_FORGET_ID };
      case 'select':
        return typeof message.default === 'number' ? { ...message, default: optionAt(message, message.default, 'select.default') } : message;
      case 'multi_select': {
        const defaults = message.defaults ?? [];
        if (!Array.isArray(defaults)) throw new RoostError('VALIDATION_ERROR', 'multi_select.defaults must be an array of option indices');
        return { ...message, defaults: defaults.map((index, i) => optionAt(message, index, `multi_select.defaults.${i}`)) };
      }
      case 'log':
        return message.level === 'trace' ? { ...message, level: 'debug' } : message;
      default:
        return message;
    }
  },
};

function optionAt(message: Record<string, any>, index: unknown, field: string): string {
  const options: unknown = message.options;
  if (!Array.isArray(options) || options.some((o) => typeof o !== 'string')) {
    throw new RoostError('VALIDATION_ERROR', `${message.type}.options must be an array of strings`);
  }
  if (!Number.isInteger(index) || (index as number) < 0 || (index as number) >= options.length) {
    throw new RoostError('VALIDATION_ERROR', `${field} must be the index of an option (0-${options.length - 1})`);
  }
  return options[index as number] as string;
}
