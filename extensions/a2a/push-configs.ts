// The push notification config methods of both A2A versions, over JSON-RPC and HTTP+JSON: 0.3's
// tasks/pushNotificationConfig/{set,get,list,delete} and 1.0's {Create,Get,List,Delete}TaskPushNotificationConfig(s)
// (HTTP+JSON: <base>/tasks/{id}/pushNotificationConfigs[/{configId}]). A config belongs to a task of the
// caller's tenant (another's is -32001, as the task is); its URL must be http(s) and within the tenant's
// reach (sdk/reach.ts: no private or loopback address unless the operator allows it). Credentials are
// never answered back. Setting one starts the task's watch (push-delivery.ts).
import { RoostError } from '../../protocol/errors.js';
import { validate } from '../../protocol/validate.js';
import { checkTarget, reachPolicy } from '../../sdk/reach.js';
import { Sealer } from '../../sdk/sealed.js';
import { schema } from './context.js';
import { RpcError, getTask, type Endpoint } from './operations.js';
import { MAX_CONFIGS_PER_TASK, PushConfigStore, type PushConfig } from './push-store.js';

type Version = PushConfig['version'];

interface SetParams {
  taskId: string;
  id?: string;
  url?: string;
  token?: string;
  authentication?: Authentication;
  pushNotificationConfig?: { id?: string; url: string; token?: string; authentication?: Authentication };
}
interface Authentication {
  scheme?: string;
  schemes?: string[];
  credentials?: string;
}
interface RefParams {
  taskId?: string;
  id?: string;
  pushNotificationConfigId?: string;
}

/** The config in the version's shape (0.3 nests it under pushNotificationConfig, 1.0 does not). */
export function shapeConfig(config: PushConfig, version: Version): unknown {
  const auth = config.scheme ? { authentication: version === '1.0' ? { scheme: config.scheme } : { schemes: [config.scheme] } } : {};
  const fields = { id: config.id, url: config.url, ...(config.token ? { token: config.token } : {}), ...auth };
  return version === '1.0' ? { taskId: config.taskId, ...fields } : { taskId: config.taskId, pushNotificationConfig: fields };
}

export async function setConfig(params: unknown, endpoint: Endpoint, version: Version): Promise<unknown> {
  const p = validate<SetParams>(schema(endpoint.ctx, 'rpc-push-config.json'), params, 'params');
  const given = version === '1.0' ? p : p.pushNotificationConfig;
  if (!given?.url) throw new RpcError(-32602, `Invalid params: ${version === '1.0' ? 'url' : 'pushNotificationConfig.url'} is required`);
  const { ctx, req } = endpoint;
  const tenantId = req.auth.tenantId;
  const task = await getTask(endpoint, p.taskId, false);
  const url = await checkPushUrl(endpoint, given.url);
  const store = new PushConfigStore(ctx.db);
  const replacing = given.id ? await store.get(tenantId, task.id, given.id) : undefined;
  if (!replacing && (await store.count(tenantId, task.id)) >= MAX_CONFIGS_PER_TASK) throw new RpcError(-32602, `Invalid params: a task takes at most ${MAX_CONFIGS_PER_TASK} push configs`);
  const auth = given.authentication;
  const config = await store.put(tenantId, {
    taskId: task.id, version, url: url.href, token: given.token || null, scheme: auth?.scheme ?? auth?.schemes?.[0] ?? null,
    ...(given.id ? { id: given.id } : {}), ...(auth?.credentials ? { credentials: auth.credentials } : {}),
  }, await Sealer.forExtension(ctx.host));
  ctx.host.audit('a2a.push_config.set', `a2a-task:${task.id}`, { configId: config.id, origin: url.origin });
  endpoint.state.push.watch(tenantId, task.id);
  return shapeConfig(config, version);
}

/** A push URL the caller's tenant may reach (http(s), sdk/reach.ts), or -32602 saying why not. */
export async function checkPushUrl(endpoint: Endpoint, raw: string): Promise<URL> {
  try {
    return await checkTarget(reachPolicy(endpoint.ctx), endpoint.req.auth.tenantId, raw, 'url');
  } catch (err) {
    if (err instanceof RoostError && (err.code === 'FORBIDDEN' || err.code === 'VALIDATION_ERROR')) throw new RpcError(-32602, `Invalid params: ${err.message}`);
    throw err;
  }
}

/**
 * A config given with the message (0.3's configuration.pushNotificationConfig, 1.0's
 * configuration.taskPushNotificationConfig): its URL checked before the task starts, set once it exists.
 */
export async function inlineConfig(given: { url?: unknown } | undefined, endpoint: Endpoint, version: Version): Promise<((row: { id: string }) => Promise<unknown>) | undefined> {
  if (!given) return undefined;
  if (typeof given.url !== 'string') throw new RpcError(-32602, 'Invalid params: the push notification config needs a url');
  await checkPushUrl(endpoint, given.url);
  return (row) => setConfig(version === '1.0' ? { ...given, taskId: row.id } : { taskId: row.id, pushNotificationConfig: given }, endpoint, version);
}

/** The task a reference names (0.3: `id`; 1.0: `taskId`) and the config (0.3: `pushNotificationConfigId`; 1.0: `id`). */
function refOf(params: unknown, endpoint: Endpoint, version: Version): { taskId: string; configId: string | undefined } {
  const p = validate<RefParams>(schema(endpoint.ctx, 'rpc-push-config-ref.json'), params, 'params');
  const taskId = version === '1.0' ? p.taskId : p.id;
  if (!taskId) throw new RpcError(-32602, `Invalid params: ${version === '1.0' ? 'taskId' : 'id'} (the task's id) is required`);
  return { taskId, configId: version === '1.0' ? p.id : p.pushNotificationConfigId };
}

export async function getConfig(params: unknown, endpoint: Endpoint, version: Version): Promise<unknown> {
  const { taskId, configId } = refOf(params, endpoint, version);
  const task = await getTask(endpoint, taskId, false);
  const store = new PushConfigStore(endpoint.ctx.db);
  // 0.3 may leave the config out: the task's first one.
  const config = configId ? await store.get(endpoint.req.auth.tenantId, task.id, configId) : (await store.list(endpoint.req.auth.tenantId, task.id))[0];
  if (!config) throw new RpcError(-32001, `Task not found: task ${task.id} has no push notification config${configId ? ` ${configId}` : ''}`);
  return shapeConfig(config, version);
}

export async function listConfigs(params: unknown, endpoint: Endpoint, version: Version): Promise<unknown> {
  const { taskId } = refOf(params, endpoint, version);
  const task = await getTask(endpoint, taskId, false);
  const configs = (await new PushConfigStore(endpoint.ctx.db).list(endpoint.req.auth.tenantId, task.id)).map((c) => shapeConfig(c, version));
  // A task has at most ten: one page.
  return version === '1.0' ? { configs, nextPageToken: '' } : configs;
}

export async function deleteConfig(params: unknown, endpoint: Endpoint, version: Version): Promise<unknown> {
  const { taskId, configId } = refOf(params, endpoint, version);
  if (!configId) throw new RpcError(-32602, `Invalid params: ${version === '1.0' ? 'id' : 'pushNotificationConfigId'} (the config's id) is required`);
  const task = await getTask(endpoint, taskId, false);
  if (!(await new PushConfigStore(endpoint.ctx.db).delete(endpoint.req.auth.tenantId, task.id, configId))) throw new RpcError(-32001, `Task not found: task ${task.id} has no push notification config ${configId}`);
  endpoint.ctx.host.audit('a2a.push_config.delete', `a2a-task:${task.id}`, { configId });
  return version === '1.0' ? {} : null;
}

/** The JSON-RPC methods of both versions, by name. */
export const PUSH_METHODS: Record<string, (params: unknown, endpoint: Endpoint) => Promise<unknown>> = {
  'tasks/pushNotificationConfig/set': (p, e) => setConfig(p, e, '0.3'),
  'tasks/pushNotificationConfig/get': (p, e) => getConfig(p, e, '0.3'),
  'tasks/pushNotificationConfig/list': (p, e) => listConfigs(p, e, '0.3'),
  'tasks/pushNotificationConfig/delete': (p, e) => deleteConfig(p, e, '0.3'),
  CreateTaskPushNotificationConfig: (p, e) => setConfig(p, e, '1.0'),
  GetTaskPushNotificationConfig: (p, e) => getConfig(p, e, '1.0'),
  ListTaskPushNotificationConfigs: (p, e) => listConfigs(p, e, '1.0'),
  DeleteTaskPushNotificationConfig: (p, e) => deleteConfig(p, e, '1.0'),
};
