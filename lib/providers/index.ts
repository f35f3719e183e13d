// One door to the model providers: the streaming drivers (the sessions' agent runner), plain text
// completion on top of them (the CLI), and a provider's configuration read from named secrets (the
// server's `secret` capability).

export type {
  Block,
  ChatMessage,
  DriverName,
  ModelCheck,
  ModelDriver,
  ModelReply,
  ModelRequest,
  ProviderConfig,
  ProviderName,
  StreamEvent,
  TextMessage,
  ToolSpec,
  Usage,
} from './types.js';
export type { CompletionRequest, CompletionResult, ProviderOptions } from './completion.js';
export { ModelProvider, createProvider } from './completion.js';
export { createDriver, preloadDriver } from './drivers.js';
export { tracedDriver } from './traced-driver.js';
export { ECHO_MODEL, ECHO_PROVIDER } from './echo.js';
export { PROVIDER_DEFAULTS, normalizeOllamaHost } from './defaults.js';
export { resolveProvider, type SecretReader } from './resolve.js';
export { isOutage } from './errors.js';
export { PROVIDER_NAMES, isProviderName } from './types.js';
