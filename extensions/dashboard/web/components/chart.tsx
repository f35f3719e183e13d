// A time series drawn by uPlot (canvas), sized to its container, with a table of the same numbers for
// screen readers; and plain bar lists for counts by category.
import { useEffect, useRef } from 'preact/hooks';
import uPlot from 'uplot';

export interface Series {
  label: string;
  /** [unix seconds, value] in time order. */
  points: Array<[number, number]>;
}

const css = (name: string) => getComputedStyle(document.documentElement).getPropertyValue(name).trim() || '#3b6fd8';

export function TimeChart({ title, series, unit, bars }: { title: string; series: Series[]; unit: string; bars?: boolean }) {
  const box = useRef<HTMLDivElement>(null);
  // Drawn again only when the numbers change, not on every render of the page around it.
  const key = JSON.stringify(series);
  useEffect(() => {
    const element = box.current;
    if (!element || series.length === 0) return;
    const xs = [...new Set(series.flatMap((s) => s.points.map((p) => p[0])))].sort((a, b) => a - b);
    const data: uPlot.AlignedData = [xs, ...series.map((s) => {
      const byX = new Map(s.points);
      return xs.map((x) => byX.get(x) ?? null);
    })];
    const colors = [css('--accent'), css('--accent-2'), css('--warn'), css('--bad')];
    const axis = { stroke: css('--text-muted'), grid: { stroke: css('--border') }, ticks: { stroke: css('--border') } };
    const plot = new uPlot(
      {
        width: element.clientWidth || 600,
        height: 240,
        legend: { show: series.length > 1 },
        axes: [axis, { ...axis, size: 60 }],
        series: [
          {},
          ...series.map((s, i) => ({
            label: s.label,
            stroke: colors[i % colors.length],
            fill: bars ? `${colors[i % colors.length]}55` : undefined,
            width: 2,
            ...(bars ? { paths: uPlot.paths.bars!({ size: [0.6, 40] }), points: { show: false } } : {}),
          })),
        ],
      },
      data,
      element,
    );
    const resize = new ResizeObserver(() => plot.setSize({ width: element.clientWidth || 600, height: 240 }));
    resize.observe(element);
    return () => {
      resize.disconnect();
      plot.destroy();
    };
  }, [key, bars]);
  return (
    <figure class="chart">
      <figcaption>{title}</figcaption>
      <div ref={box} class="chart-box" aria-hidden="true" data-points={series.reduce((n, s) => n + s.points.length, 0)} />
      <table class="sr-only">
        <caption>{title} ({unit})</caption>
        <tbody>
          {series.flatMap((s) => s.points.map(([x, y]) => <tr key={`${s.label}${x}`}><th scope="row">{s.label} {new Date(x * 1000).toISOString().slice(0, 16)}</th><td>{y}</td></tr>))}
        </tbody>
      </table>
    </figure>
  );
}

export function BarList({ title, rows }: { title: string; rows: Array<{ label: string; value: number; note?: string }> }) {
  const max = Math.max(1, ...rows.map((r) => r.value));
  return (
    <figure class="bars">
      <figcaption>{title}</figcaption>
      {rows.length === 0 ? <p class="empty">No data yet.</p> : (
        <ul>
          {rows.map((r) => (
            <li key={r.label}>
              <span class="bar-label">{r.label}</span>
              <span class="bar-track" aria-hidden="true"><span class="bar" style={{ width: `${(r.value / max) * 100}%` }} /></span>
              <span class="bar-value">{r.value}{r.note ? ` · ${r.note}` : ''}</span>
            </li>
          ))}
        </ul>
      )}
    </figure>
  );
}
