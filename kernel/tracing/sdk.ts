// The kernel's OpenTelemetry tracing, imported only when an OTLP endpoint is set (tracing.ts). Spans
// go to the collector through the OTLP/HTTP exporter, which reads the standard OTEL_EXPORTER_OTLP_*
// variables (endpoint, headers, timeout). A span records names, ids and figures: the method, the route
// template (never the path with its ids, never the query), the status, the tenant, the extension — never
// a header, a key, a body, a prompt or an answer.
import { context, propagation, ROOT_CONTEXT, SpanKind, SpanStatusCode, trace, type Attributes, type Context } from '@opentelemetry/api';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { resourceFromAttributes } from '@opentelemetry/resources';
import { BatchSpanProcessor } from '@opentelemetry/sdk-trace-base';
import { NodeTracerProvider } from '@opentelemetry/sdk-trace-node';
import { ATTR_HTTP_REQUEST_METHOD, ATTR_HTTP_RESPONSE_STATUS_CODE, ATTR_HTTP_ROUTE, ATTR_SERVICE_NAME, ATTR_SERVICE_VERSION } from '@opentelemetry/semantic-conventions';
import type Koa from 'koa';
import type { TraceContext } from '../../protocol/messages.js';
import type { Log } from '../log.js';
import type { State } from '../http/app.js';
import type { OutgoingSpan, RouteOfRequest, Tracing } from './tracing.js';
import { readableSpan, wireSpans } from './wire.js';

/** How often the batch of ended spans is sent: short enough that a trace shows while it is looked for. */
const EXPORT_DELAY_MS = 1_000;

export function openTelemetryTracing(version: string, log: Log): Tracing {
  const resource = resourceFromAttributes({ [ATTR_SERVICE_NAME]: 'roost', [ATTR_SERVICE_VERSION]: version });
  const exporter = new OTLPTraceExporter();
  const processor = new BatchSpanProcessor(exporter, { scheduledDelayMillis: EXPORT_DELAY_MS });
  const provider = new NodeTracerProvider({ resource, spanProcessors: [processor] });
  // The AsyncLocalStorage context manager and the W3C trace-context propagator, process-wide.
  provider.register();
  const tracer = trace.getTracer('roost-kernel', version);

  return {
    httpSpans(routeOf: RouteOfRequest): Koa.Middleware<State> {
      return async (ctx, next) => {
        const parent = propagation.extract(ROOT_CONTEXT, ctx.headers);
        const span = tracer.startSpan(ctx.method, { kind: SpanKind.SERVER, attributes: { [ATTR_HTTP_REQUEST_METHOD]: ctx.method } }, parent);
        try {
          await context.with(trace.setSpan(parent, span), next);
        } finally {
          const route = routeOf(ctx);
          if (route) {
            span.updateName(`${ctx.method} ${route.pattern}`);
            span.setAttribute(ATTR_HTTP_ROUTE, route.pattern);
            if (route.owner !== 'kernel') span.setAttribute('roost.extension', route.owner);
          }
          const tenant = ctx.state.identity?.tenantId;
          if (tenant) span.setAttribute('roost.tenant', tenant);
          span.setAttribute(ATTR_HTTP_RESPONSE_STATUS_CODE, ctx.status);
          if (ctx.status >= 500) span.setStatus({ code: SpanStatusCode.ERROR });
          span.end();
        }
      };
    },

    async aroundExtension(outgoing: OutgoingSpan, send) {
      const attributes: Attributes = { 'roost.extension': outgoing.extension, 'roost.message': outgoing.type };
      if (outgoing.tenantId) attributes['roost.tenant'] = outgoing.tenantId;
      if (outgoing.route) attributes['roost.route'] = outgoing.route;
      if (outgoing.tool) attributes['roost.tool'] = outgoing.tool;
      const name = outgoing.tool ? `tool ${outgoing.tool}` : `${outgoing.extension} ${outgoing.route ?? outgoing.type}`;
      const span = tracer.startSpan(name, { kind: SpanKind.CLIENT, attributes });
      const active = trace.setSpan(context.active(), span);
      const carrier: Record<string, string> = {};
      propagation.inject(active, carrier);
      try {
        return await context.with(active, () => send(carrier as unknown as TraceContext));
      } catch (err) {
        // The error's code only: its message may quote what the caller sent.
        span.setStatus({ code: SpanStatusCode.ERROR, message: (err as { code?: string }).code ?? 'failed' });
        throw err;
      } finally {
        span.end();
      }
    },

    within(carried, fn) {
      // Never the context the frame happened to be read in (the extension's start): the frame's own, or none.
      return context.with(extractFrom(carried), fn);
    },

    received(extension, spans) {
      for (const span of wireSpans(spans)) processor.onEnd(readableSpan(span, extension, resource));
    },

    async shutdown() {
      await provider.shutdown().catch((err: Error) => log('warn', `tracing: the last spans were not exported (${err.message})`));
    },
  };
}

function extractFrom(carried: unknown): Context {
  if (typeof carried !== 'object' || carried === null || typeof (carried as TraceContext).traceparent !== 'string') return ROOT_CONTEXT;
  return propagation.extract(ROOT_CONTEXT, carried);
}
