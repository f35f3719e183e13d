// The prometheus extension: GET /metrics, the kernel's figures (read with system_metrics) in Prometheus'
// text format, for the instance owner or a scraper holding the metrics key (the route's machine key,
// ROOST_METRICS_KEY, which the kernel checks) — never for anyone else.
import { forbidden } from '../../protocol/errors.js';
import { runExtension } from '../../sdk/extension.js';
import { PROMETHEUS_CONTENT_TYPE, prometheusText, type MetricFamily } from './text.js';

const SCRAPER = 'machine-key:ROOST_METRICS_KEY';

runExtension({
  routes: {
    'GET /metrics': async (req, ctx) => {
      const owner = req.auth.tenantId === 'default' && req.auth.role === 'owner';
      if (!owner && req.auth.actor !== SCRAPER) throw forbidden('/metrics is for the instance owner, or a scraper with the metrics key (ROOST_METRICS_KEY)');
      const families = await ctx.host.systemMetrics<MetricFamily[]>({ scrape: true });
      return { status: 200, headers: { 'Content-Type': PROMETHEUS_CONTENT_TYPE }, body: prometheusText(families) };
    },
  },
});
