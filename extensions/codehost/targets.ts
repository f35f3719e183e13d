// Where outbound webhooks may go: http(s) URLs whose host resolves only to public addresses, unless
// ROOST_EXT_CODEHOST_ALLOW_PRIVATE_TARGETS=1 (a deployment whose receivers live on its own network, and
// the tests); a link-local or cloud-metadata address never. Checked at registration, and again as each
// delivery connects (DNS may change in between): extensions/_shared/outbound.ts.
import { RoostError } from '../../protocol/errors.js';
import { checkReach, parseHttpUrl, type Reach } from '../_shared/outbound.js';

export function targetReach(allowPrivate: boolean): Reach {
  return allowPrivate ? 'no-metadata' : 'public';
}

/** Throws FORBIDDEN when the URL's host is (or resolves to) an address webhooks may not reach. */
export async function checkTarget(url: string, allowPrivate: boolean): Promise<URL> {
  const target = parseHttpUrl(url);
  try {
    await checkReach(target, targetReach(allowPrivate));
  } catch (err) {
    if (err instanceof RoostError && err.code === 'FORBIDDEN' && !allowPrivate) {
      throw new RoostError('FORBIDDEN', `${err.message} (ROOST_EXT_CODEHOST_ALLOW_PRIVATE_TARGETS=1 lets webhooks reach loopback and private receivers)`);
    }
    throw err;
  }
  return target;
}
