// Where outbound webhooks may go: http(s) URLs whose host resolves only to public addresses, unless
// ROOST_EXT_CODEHOST_ALLOW_PRIVATE_TARGETS=1 (a deployment whose receivers live on its own network,
// and the tests). Checked at registration and again at each delivery (DNS may change in between).
import { lookup } from 'node:dns/promises';
import { BlockList, isIP } from 'node:net';
import { RoostError, validationError } from '../../protocol/errors.js';

const PRIVATE = new BlockList();
for (const [net, prefix] of [['0.0.0.0', 8], ['10.0.0.0', 8], ['100.64.0.0', 10], ['127.0.0.0', 8], ['169.254.0.0', 16], ['172.16.0.0', 12], ['192.0.0.0', 24], ['192.168.0.0', 16], ['198.18.0.0', 15], ['224.0.0.0', 4], ['240.0.0.0', 4]] as const) {
  PRIVATE.addSubnet(net, prefix, 'ipv4');
}
for (const [net, prefix] of [['::', 128], ['::1', 128], ['fc00::', 7], ['fe80::', 10], ['ff00::', 8]] as const) PRIVATE.addSubnet(net, prefix, 'ipv6');

export function isPrivateAddress(address: string): boolean {
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address)?.[1];
  if (mapped) return isPrivateAddress(mapped);
  const family = isIP(address);
  return family === 0 || PRIVATE.check(address, family === 4 ? 'ipv4' : 'ipv6');
}

export function parseTarget(url: string): URL {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw validationError(`url ${JSON.stringify(url)} is not a URL`);
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') throw validationError('url must be http or https');
  if (parsed.username || parsed.password) throw validationError('url must not carry credentials');
  return parsed;
}

/** Throws FORBIDDEN when the URL's host is (or resolves to) a loopback, private or reserved address. */
export async function checkTarget(url: string, allowPrivate: boolean): Promise<void> {
  const host = parseTarget(url).hostname.replace(/^\[|\]$/g, '');
  if (allowPrivate) return;
  const addresses = isIP(host) ? [host] : (await lookup(host, { all: true }).catch(() => [])).map((a) => a.address);
  if (addresses.length === 0) throw new RoostError('VALIDATION_ERROR', `the host of ${url} does not resolve`);
  const refused = addresses.find(isPrivateAddress);
  if (refused) throw new RoostError('FORBIDDEN', `webhooks may not target ${host} (${refused}: a loopback, private or reserved address); ROOST_EXT_CODEHOST_ALLOW_PRIVATE_TARGETS=1 allows it`);
}
