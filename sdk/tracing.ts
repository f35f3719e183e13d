// Tracing inside an extension (or a process an extension runs, such as a session's agent runner),
// imported only once a frame has carried a trace context: the host traces, so this process does too.
// Its spans continue the context each frame carries and are sent back up the pipe in `spans` frames
// (protocol/messages.ts), never to the network: a sandboxed extension may have none, and the kernel,
// which exports its own spans already, knows the collector and its credentials. The kernel marks each
// span with the extension's name.
import { context, propagation, ROOT_CONTEXT, SpanKind, SpanStatusCode, trace, type Attributes, type Context, type Tracer } from '@opentelemetry/api';
import { ExportResultCode, type ExportResult } from '@opentelemetry/core';
import { SimpleSpanProcessor, type ReadableSpan, type SpanExporter } from '@opentelemetry/sdk-trace-base';
import { NodeTracerProvider } from '@opentelemetry/sdk-trace-node';
import type { TraceContext, WireSpan } from '../protocol/messages.js';

export interface FrameTracing {
  tracer: Tracer;
  /** Runs `fn` in a span of its own, the child of the trace context a frame carried (none: a trace of its own). */
  serve<T>(carried: unknown, name: string, attributes: Attributes, fn: () => Promise<T>): Promise<T>;
  /** The trace context to carry in a frame sent now (a `call`, a runner's `turn`), or undefined outside any span. */
  current(): TraceContext | undefined;
}

/** Most attributes a span keeps, as the protocol's schema allows. */
const MAX_ATTRIBUTES = 64;

export function startFrameTracing(send: (spans: WireSpan[]) => void): FrameTracing {
  // Each span is a frame as soon as it ends: a pipe write, no batching, and nothing left behind when the process leaves.
  const provider = new NodeTracerProvider({ spanProcessors: [new SimpleSpanProcessor(new FrameExporter(send))] });
  provider.register();
  const tracer = trace.getTracer('roost-extension');
  return {
    tracer,
    serve: (carried, name, attributes, fn) => tracer.startActiveSpan(name, { kind: SpanKind.SERVER, attributes }, extractFrom(carried), async (span) => {
      try {
        return await fn();
      } catch (err) {
        span.setStatus({ code: SpanStatusCode.ERROR, message: (err as { code?: string }).code ?? 'failed' });
        throw err;
      } finally {
        span.end();
      }
    }),
    current() {
      if (!trace.getSpan(context.active())) return undefined;
      const carrier: Record<string, string> = {};
      propagation.inject(context.active(), carrier);
      return carrier.traceparent ? (carrier as unknown as TraceContext) : undefined;
    },
  };
}

function extractFrom(carried: unknown): Context {
  if (typeof carried !== 'object' || carried === null || typeof (carried as TraceContext).traceparent !== 'string') return ROOT_CONTEXT;
  return propagation.extract(ROOT_CONTEXT, carried);
}

class FrameExporter implements SpanExporter {
  constructor(private readonly send: (spans: WireSpan[]) => void) {}

  export(spans: ReadableSpan[], done: (result: ExportResult) => void): void {
    this.send(spans.map(toWire));
    done({ code: ExportResultCode.SUCCESS });
  }

  async shutdown(): Promise<void> {}
}

function toWire(span: ReadableSpan): WireSpan {
  const { traceId, spanId } = span.spanContext();
  const attributes: Record<string, string | number | boolean> = {};
  for (const [key, value] of Object.entries(span.attributes).slice(0, MAX_ATTRIBUTES)) {
    if (typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean') attributes[key] = value;
  }
  return {
    traceId,
    spanId,
    ...(span.parentSpanContext ? { parentSpanId: span.parentSpanContext.spanId } : {}),
    name: span.name.slice(0, 256),
    kind: span.kind,
    start: [span.startTime[0], span.startTime[1]],
    end: [span.endTime[0], span.endTime[1]],
    attributes,
    status: { code: span.status.code, ...(span.status.message ? { message: span.status.message.slice(0, 1024) } : {}) },
  };
}
