// Tracing is off unless an OTLP endpoint is named (OTEL_EXPORTER_OTLP_ENDPOINT or
// OTEL_EXPORTER_OTLP_TRACES_ENDPOINT): then, and only then, the OpenTelemetry SDK is imported (sdk.ts),
// so a server that does not trace loads none of it and starts no slower. This file imports no
// OpenTelemetry module; the rest of the kernel holds a `Tracing` or undefined.
import type Koa from 'koa';
import type { TraceContext, WireSpan } from '../../protocol/messages.js';
import type { State } from '../http/app.js';
import type { Log } from '../log.js';

/** What a host → extension message says about itself, for its span's name and attributes. */
export interface OutgoingSpan {
  extension: string;
  /** `request`: the route ("GET /api/x/:id"); `tool`: the tool's name. */
  type: string;
  route?: string;
  tool?: string;
  tenantId?: string | null;
}

/** The route template an answered request was served under and who serves it ('kernel' or an extension's name). */
export type RouteOfRequest = (ctx: Koa.ParameterizedContext<State>) => { pattern: string; owner: string } | undefined;

export interface Tracing {
  /** A span per HTTP request (continuing an incoming traceparent), named by its route template. */
  httpSpans(routeOf: RouteOfRequest): Koa.Middleware<State>;
  /** Runs one host → extension message as a span; `send` gets the trace context to put in its frame. */
  aroundExtension<T>(span: OutgoingSpan, send: (trace: TraceContext) => Promise<T>): Promise<T>;
  /** Runs `fn` as a continuation of the trace context an extension's frame carried (its `call`). */
  within<T>(trace: unknown, fn: () => T): T;
  /** Spans an extension ended and sent in a `spans` frame: exported as the kernel's, marked with its name. */
  received(extension: string, spans: WireSpan[]): void;
  /** Exports what is pending and stops. */
  shutdown(): Promise<void>;
}

export function tracingEndpoint(env: NodeJS.ProcessEnv): string | undefined {
  return env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT || env.OTEL_EXPORTER_OTLP_ENDPOINT || undefined;
}

/** The tracing of this server, or undefined (nothing loaded) when no OTLP endpoint is set. */
export async function startTracing(env: NodeJS.ProcessEnv, version: string, log: Log): Promise<Tracing | undefined> {
  const endpoint = tracingEndpoint(env);
  if (!endpoint) return undefined;
  const { openTelemetryTracing } = await import('./sdk.js');
  const tracing = openTelemetryTracing(version, log);
  // The origin only: an endpoint's URL may carry credentials.
  log('info', `tracing: spans are exported over OTLP/HTTP to ${URL.canParse(endpoint) ? new URL(endpoint).origin : 'the configured endpoint'}`);
  return tracing;
}
