// Spans an extension sent in a `spans` frame (protocol/messages.ts WireSpan), made into the SDK's ended
// spans so the kernel's exporter sends them with its own. The extension's name on each is the kernel's
// word, never the extension's own claim; the rest is what it recorded.
import { TraceFlags, type Attributes, type SpanStatus } from '@opentelemetry/api';
import type { Resource } from '@opentelemetry/resources';
import type { ReadableSpan } from '@opentelemetry/sdk-trace-base';
import type { WireSpan } from '../../protocol/messages.js';

/** The spans of a frame that are whole (the frame was validated against the protocol schema already). */
export function wireSpans(spans: unknown): WireSpan[] {
  return Array.isArray(spans) ? spans.filter((s): s is WireSpan => typeof s === 'object' && s !== null && typeof (s as WireSpan).traceId === 'string') : [];
}

export function readableSpan(span: WireSpan, extension: string, resource: Resource): ReadableSpan {
  const flags = TraceFlags.SAMPLED;
  const attributes: Attributes = { ...span.attributes, 'roost.extension': extension };
  const status: SpanStatus = span.status ? { code: span.status.code, ...(span.status.message ? { message: span.status.message } : {}) } : { code: 0 };
  return {
    name: span.name,
    kind: span.kind ?? 0,
    spanContext: () => ({ traceId: span.traceId, spanId: span.spanId, traceFlags: flags }),
    ...(span.parentSpanId ? { parentSpanContext: { traceId: span.traceId, spanId: span.parentSpanId, traceFlags: flags } } : {}),
    startTime: span.start,
    endTime: span.end,
    duration: difference(span.end, span.start),
    status,
    attributes,
    links: [],
    events: [],
    ended: true,
    resource,
    instrumentationScope: { name: `roost-extension:${extension}` },
    droppedAttributesCount: 0,
    droppedEventsCount: 0,
    droppedLinksCount: 0,
  };
}

function difference(end: [number, number], start: [number, number]): [number, number] {
  let seconds = end[0] - start[0];
  let nanos = end[1] - start[1];
  if (nanos < 0) {
    seconds -= 1;
    nanos += 1e9;
  }
  return seconds < 0 ? [0, 0] : [seconds, nanos];
}
