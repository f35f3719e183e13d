// A model call as an OpenTelemetry span, in a process that traces (a session's runner once a turn
// carried a trace context): named and described after the GenAI semantic conventions, with the model and
// the token counts — never the prompt, the system prompt, the tools' input or the answer. Only the
// Tracer's type is imported here: a process that does not trace loads no OpenTelemetry module.
import type { Tracer } from '@opentelemetry/api';
import type { ModelDriver } from './types.js';

/** OpenTelemetry's SpanKind.CLIENT and SpanStatusCode.ERROR, as numbers (the enums would import the API). */
const CLIENT = 2;
const ERROR = 2;

/** `tracer` is asked at each call: undefined (not tracing, or not yet) sends the call untraced. */
export function tracedDriver(driver: ModelDriver, tracer: () => Tracer | undefined): ModelDriver {
  return {
    provider: driver.provider,
    model: driver.model,
    checkModel: (signal) => driver.checkModel(signal),
    send(request, onEvent) {
      const active = tracer();
      if (!active) return driver.send(request, onEvent);
      const attributes = { 'gen_ai.operation.name': 'chat', 'gen_ai.system': driver.provider, 'gen_ai.request.model': driver.model, 'gen_ai.request.max_tokens': request.maxTokens };
      return active.startActiveSpan(`chat ${driver.model}`, { kind: CLIENT, attributes }, async (span) => {
        try {
          const reply = await driver.send(request, onEvent);
          span.setAttributes({
            'gen_ai.response.model': reply.model,
            'gen_ai.usage.input_tokens': reply.usage.inputTokens,
            'gen_ai.usage.output_tokens': reply.usage.outputTokens,
          });
          return reply;
        } catch (err) {
          // The error's code only: a provider's message may quote the request.
          span.setStatus({ code: ERROR, message: (err as { code?: string }).code ?? 'failed' });
          throw err;
        } finally {
          span.end();
        }
      });
    },
  };
}
