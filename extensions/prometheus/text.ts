// Prometheus' text exposition format 0.0.4, written from prom-client's JSON of each metric (what
// system_metrics answers), line for line as prom-client's own Registry.metrics() writes it.

export const PROMETHEUS_CONTENT_TYPE = 'text/plain; version=0.0.4; charset=utf-8';

export interface MetricFamily {
  name: string;
  help: string;
  type: string;
  values?: Array<{ value: number | null; labels?: Record<string, string | number>; metricName?: string }>;
}

export function prometheusText(families: MetricFamily[]): string {
  return `${families.map(family).join('\n\n')}\n`;
}

function family(metric: MetricFamily): string {
  const name = escape(metric.name);
  const lines = [`# HELP ${name} ${escape(metric.help)}`, `# TYPE ${name} ${metric.type}`];
  for (const { value, labels = {}, metricName = name } of metric.values ?? []) {
    const pairs = Object.entries(labels).map(([label, text]) => `${label}="${typeof text === 'string' ? escape(text).replace(/"/g, '\\"') : text}"`);
    lines.push(`${metricName}${pairs.length > 0 ? `{${pairs.join(',')}}` : ''} ${number(value)}`);
  }
  return lines.join('\n');
}

/** JSON has no NaN or infinities: a value that was one arrives as null, and NaN is the honest reading. */
function number(value: number | null): string {
  if (value === null || Number.isNaN(value)) return 'Nan';
  if (!Number.isFinite(value)) return value < 0 ? '-Inf' : '+Inf';
  return String(value);
}

function escape(text: string): string {
  return text.replace(/\\/g, '\\\\').replace(/\n/g, '\\n');
}
