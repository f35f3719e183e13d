// Every response names its request in X-Request-Id: the caller's own id when it is sane, else a new one.
// Log records made for the request (the kernel's, and an extension's while it serves it) carry it.
import { randomUUID } from 'node:crypto';

const REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;

export function requestIdFor(given: string | undefined): string {
  return given !== undefined && REQUEST_ID.test(given) ? given : randomUUID();
}
