// The benchmarks drive the built artefacts (dist/, what ships), typed by their sources. Everything
// comes from dist/ so that classes such as RoostError are the same ones the server uses.
type Server = typeof import('../../../kernel/server.js');
type Provision = typeof import('../../../kernel/storage/provision.js');
type Storage = typeof import('../../../lib/storage.js');
type PeerModule = typeof import('../../../protocol/peer.js');
type ChildModule = typeof import('../../../lib/child.js');
type HostClientModule = typeof import('../../../sdk/host-client.js');
type SqlModule = typeof import('../../../sdk/sql.js');
type AgentRoutes = typeof import('../../../extensions/agents/routes.js');

const dist = (path: string) => import(new URL(`../../../dist/${path}`, import.meta.url).href);

export const { startServer } = (await dist('kernel/server.js')) as Server;
export const { storageFor } = (await dist('kernel/storage/provision.js')) as Provision;
export const { openDatabase } = (await dist('lib/storage.js')) as Storage;
export const { Peer } = (await dist('protocol/peer.js')) as PeerModule;
export const { PluginChild } = (await dist('lib/child.js')) as ChildModule;
export const { HostClient } = (await dist('sdk/host-client.js')) as HostClientModule;
export const { openReader } = (await dist('sdk/sql.js')) as SqlModule;
export const { routes: agentRoutes } = (await dist('extensions/agents/routes.js')) as AgentRoutes;

export const roostBin = new URL('../../../dist/cli/bin.js', import.meta.url).pathname;
export const projectsDir = new URL('../../../extensions/projects', import.meta.url).pathname;
export const agentsDir = new URL('../../../extensions/agents', import.meta.url).pathname;
