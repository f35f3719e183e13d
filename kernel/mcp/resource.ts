// /mcp as an OAuth protected resource (RFC 9728, the MCP spec's "Authorization"): its URL, which an
// access token's audience must name (RFC 8707), and where its metadata is, when something serves it.
// The kernel only validates tokens: an extension that is an authorization server serves the metadata
// at the well-known URI RFC 9728 §3.1 derives from this URL, and mints keys bound to it.
import type { IncomingMessage } from 'node:http';
import type { Kernel } from '../kernel.js';

/** RFC 9728 §3: the well-known name of protected-resource metadata. */
const METADATA_NAME = 'oauth-protected-resource';
const MCP_PATH = '/mcp';

export interface McpResource {
  /** The canonical URL of /mcp as clients reach it: the audience its tokens carry. */
  url: string;
  /** The URL of its RFC 9728 metadata, or undefined when nothing serves it (no OAuth sign-in offered). */
  metadataUrl: string | undefined;
}

export function mcpResource(k: Pick<Kernel, 'config' | 'dispatcher'>, req: IncomingMessage): McpResource {
  const origin = k.config.publicUrl ?? `http://${req.headers.host ?? 'localhost'}`;
  const metadataPath = `/.well-known/${METADATA_NAME}${MCP_PATH}`;
  const served = k.dispatcher.match('GET', metadataPath)?.decl.public === true;
  return { url: `${origin}${MCP_PATH}`, metadataUrl: served ? `${origin}${metadataPath}` : undefined };
}

/** The challenge of a 401 from /mcp (RFC 6750 §3, RFC 9728 §5.1). */
export function bearerChallenge(resource: McpResource, invalidToken: string | undefined): string {
  const parts = ['realm="roost"'];
  if (invalidToken !== undefined) parts.push('error="invalid_token"', `error_description="${invalidToken.replace(/["\\]/g, '')}"`);
  if (resource.metadataUrl) parts.push(`resource_metadata="${resource.metadataUrl}"`);
  return `Bearer ${parts.join(', ')}`;
}
