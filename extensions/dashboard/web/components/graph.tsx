// A workflow drawn as SVG: nodes in columns by their distance from the start, edges as arrows, each
// node coloured by the state of its latest node run. Accessible as a list of nodes with their states.
import { GAP_X, H, layout, W, type GraphEdge, type GraphNode } from './graph-layout.js';

export function WorkflowGraph({ nodes, edges, states }: { nodes: GraphNode[]; edges: GraphEdge[]; states: Map<string, string> }) {
  const at = layout(nodes, edges);
  const width = Math.max(...[...at.values()].map((p) => p.x + W), 200) + 10;
  const height = Math.max(...[...at.values()].map((p) => p.y + H), 60) + 10;
  return (
    <figure class="graph">
      <svg viewBox={`0 0 ${width} ${height}`} width={width} height={height} role="img" aria-labelledby="graph-title">
        <title id="graph-title">Workflow graph: {nodes.map((n) => `${n.id} ${states.get(n.id) ?? 'not run'}`).join(', ')}</title>
        <defs>
          <marker id="arrow" viewBox="0 0 10 10" refX="9" refY="5" markerWidth="7" markerHeight="7" orient="auto-start-reverse">
            <path d="M 0 0 L 10 5 L 0 10 z" class="arrow" />
          </marker>
        </defs>
        {edges.map((e, i) => {
          const a = at.get(e.from);
          const b = at.get(e.to);
          if (!a || !b) return null;
          const x1 = a.x + W;
          const y1 = a.y + H / 2;
          const x2 = b.x;
          const y2 = b.y + H / 2;
          const back = x2 <= x1;
          const d = back ? `M ${a.x + W / 2} ${a.y + H} C ${a.x + W / 2} ${a.y + H + 40}, ${b.x + W / 2} ${b.y + H + 40}, ${b.x + W / 2} ${b.y + H}` : `M ${x1} ${y1} C ${x1 + GAP_X / 2} ${y1}, ${x2 - GAP_X / 2} ${y2}, ${x2} ${y2}`;
          return (
            <g key={i}>
              <path d={d} class="edge" marker-end="url(#arrow)" />
              {e.branch && <text x={(x1 + x2) / 2} y={(y1 + y2) / 2 - 4} class="edge-label">{e.branch}</text>}
            </g>
          );
        })}
        {nodes.map((n) => {
          const p = at.get(n.id)!;
          const state = states.get(n.id) ?? 'idle';
          return (
            <g key={n.id} class={`node node-${state}`} transform={`translate(${p.x} ${p.y})`}>
              <rect width={W} height={H} rx="8" />
              <text x="10" y="18" class="node-id">{n.id}</text>
              <text x="10" y="34" class="node-type">{n.type} · {state}</text>
            </g>
          );
        })}
      </svg>
      <figcaption class="sr-only">
        <ul>{nodes.map((n) => <li key={n.id}>{n.id} ({n.type}): {states.get(n.id) ?? 'not run'}</li>)}</ul>
      </figcaption>
    </figure>
  );
}
