// Who is at the other end. Without ROOST_TRUSTED_PROXIES the socket's address is the caller, and a
// request that says it was forwarded (X-Forwarded-For or Forwarded) is never local: a proxy on the
// same machine would otherwise make every keyless caller on the internet the owner. With trusted proxies
// named, a request from one of them is the address X-Forwarded-For gives (proxy-addr walks the chain
// from the socket back past the trusted hops), for the local rule, rate limits and the logs.
import type { IncomingMessage } from 'node:http';
import proxyaddr from 'proxy-addr';
import { validationError } from '../../protocol/errors.js';
import { isLoopback } from '../auth/identity.js';

export interface ClientAddresses {
  /** The caller's address: the socket's, or the forwarded client's behind a trusted proxy. */
  of(req: IncomingMessage): string;
  /** A loopback caller that was not forwarded, or forwarded from loopback by a trusted proxy. */
  isLocal(req: IncomingMessage): boolean;
}

/** `trusted`: addresses and CIDR ranges, or proxy-addr's names `loopback`, `linklocal`, `uniquelocal`. */
export function clientAddresses(trusted: string[]): ClientAddresses {
  const trust = compileTrust(trusted);
  const socketOf = (req: IncomingMessage) => req.socket.remoteAddress ?? '';
  const fromTrustedProxy = (req: IncomingMessage) => trust !== undefined && trust(socketOf(req), 0);
  return {
    of: (req) => (fromTrustedProxy(req) ? proxyaddr(req, trust!) : socketOf(req)),
    isLocal(req) {
      const { 'x-forwarded-for': xff, forwarded } = req.headers;
      if (!fromTrustedProxy(req)) return xff === undefined && forwarded === undefined && isLoopback(socketOf(req));
      // proxy-addr reads X-Forwarded-For only: a client named in Forwarded alone cannot be told, so it is remote.
      if (xff === undefined) return forwarded === undefined && isLoopback(socketOf(req));
      return isLoopback(proxyaddr(req, trust!));
    },
  };
}

function compileTrust(trusted: string[]): ((address: string, hop: number) => boolean) | undefined {
  if (trusted.length === 0) return undefined;
  try {
    return proxyaddr.compile(trusted);
  } catch (err) {
    throw validationError(`ROOST_TRUSTED_PROXIES: ${(err as Error).message}; name addresses or CIDR ranges (10.0.0.0/8), or loopback, linklocal, uniquelocal`);
  }
}
