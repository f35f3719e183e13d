// A dialect is how one protocol differs from cli-v1 at the edge: fields it adds to `init`, message
// types it adds, and the cli-v1 form of the messages it words differently. Everything behind the edge
// (capability checks, services) is the one host's.
import { FLEDGE_PROTOCOL, type InitMessage } from '../../../protocol/messages.js';
import { fledgeDialect } from './fledge-v1.js';

/** Why the host cancels a plugin: the person interrupted it, or it ran past its time limit. */
export type CancelCause = 'interrupted' | 'timeout';

export interface Dialect {
  /** The dialect's `init`, from cli-v1's. */
  init(base: InitMessage): InitMessage;
  /** Message types beyond cli-v1's; each is served like the cli-v1 type `translate` turns it into. */
  extraTypes: string[];
  /** The `reason` a `cancel` carries: why the host stops the plugin, in the dialect's words. */
  cancelReason(cause: CancelCause, message: string): string;
  /** The cli-v1 form of an incoming message (throws VALIDATION_ERROR for a malformed one). */
  translate(type: string, message: Record<string, any>): Record<string, any>;
}

const CLI_V1: Dialect = {
  init: (base) => base,
  extraTypes: [],
  cancelReason: (_cause, message) => message,
  translate: (_type, message) => message,
};

export function dialectFor(protocol: string): Dialect {
  return protocol === FLEDGE_PROTOCOL ? fledgeDialect : CLI_V1;
}
