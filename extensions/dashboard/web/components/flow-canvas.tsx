// The workflow editor's canvas: SVG nodes dragged with the pointer, an edge drawn by dragging from a
// node's output handle onto another node, a click (or Enter) selecting a node or an edge. From the
// keyboard: Tab reaches each node and edge, the arrow keys move a node (Shift: further), Delete removes.
import { useRef, useState } from 'preact/hooks';
import { NODE_H, NODE_W, NODE_TYPES, type Flow } from '../workflow-model.js';

export type Selection = { kind: 'node'; id: string } | { kind: 'edge'; index: number } | null;

interface Props {
  flow: Flow;
  selected: Selection;
  /** Node ids the API's last refusal names. */
  faulty: Set<string>;
  onSelect(selection: Selection): void;
  onMove(id: string, x: number, y: number): void;
  onConnect(from: string, to: string): void;
  onDelete(selection: Selection): void;
}

type Gesture = { kind: 'drag'; id: string; dx: number; dy: number } | { kind: 'wire'; from: string; x: number; y: number } | null;

const edgePath = (x1: number, y1: number, x2: number, y2: number) => {
  const bend = Math.max(40, Math.abs(x2 - x1) / 2);
  return `M ${x1} ${y1} C ${x1 + bend} ${y1}, ${x2 - bend} ${y2}, ${x2} ${y2}`;
};

export function FlowCanvas({ flow, selected, faulty, onSelect, onMove, onConnect, onDelete }: Props) {
  const svg = useRef<SVGSVGElement>(null);
  const [gesture, setGesture] = useState<Gesture>(null);
  const at = new Map(flow.nodes.map((n) => [n.id, n.position]));
  const width = Math.max(900, ...flow.nodes.map((n) => n.position.x + NODE_W + 80));
  const height = Math.max(420, ...flow.nodes.map((n) => n.position.y + NODE_H + 80));

  /** The pointer in the drawing's coordinates. */
  const point = (e: PointerEvent) => {
    const m = svg.current!.getScreenCTM()!.inverse();
    const p = new DOMPoint(e.clientX, e.clientY).matrixTransform(m);
    return { x: p.x, y: p.y };
  };
  const startDrag = (e: PointerEvent, id: string) => {
    if (e.button !== 0) return;
    const p = point(e);
    const pos = at.get(id)!;
    (e.currentTarget as Element).setPointerCapture(e.pointerId);
    setGesture({ kind: 'drag', id, dx: p.x - pos.x, dy: p.y - pos.y });
    onSelect({ kind: 'node', id });
  };
  const startWire = (e: PointerEvent, from: string) => {
    e.stopPropagation();
    svg.current!.setPointerCapture(e.pointerId);
    setGesture({ kind: 'wire', from, ...point(e) });
  };
  const moved = (e: PointerEvent) => {
    if (!gesture) return;
    const p = point(e);
    if (gesture.kind === 'drag') onMove(gesture.id, Math.max(0, p.x - gesture.dx), Math.max(0, p.y - gesture.dy));
    else setGesture({ ...gesture, ...p });
  };
  const released = (e: PointerEvent) => {
    if (gesture?.kind === 'wire') {
      const p = point(e);
      const target = flow.nodes.find((n) => p.x >= n.position.x && p.x <= n.position.x + NODE_W && p.y >= n.position.y && p.y <= n.position.y + NODE_H);
      if (target) onConnect(gesture.from, target.id);
    }
    setGesture(null);
  };
  const keys = (e: KeyboardEvent, selection: Exclude<Selection, null>) => {
    if (e.key === 'Enter' || e.key === ' ') {
      e.preventDefault();
      onSelect(selection);
    } else if (e.key === 'Delete' || e.key === 'Backspace') {
      e.preventDefault();
      onDelete(selection);
    } else if (selection.kind === 'node' && e.key.startsWith('Arrow')) {
      e.preventDefault();
      const step = e.shiftKey ? 50 : 10;
      const pos = at.get(selection.id)!;
      const dx = e.key === 'ArrowLeft' ? -step : e.key === 'ArrowRight' ? step : 0;
      const dy = e.key === 'ArrowUp' ? -step : e.key === 'ArrowDown' ? step : 0;
      onMove(selection.id, Math.max(0, pos.x + dx), Math.max(0, pos.y + dy));
    }
  };

  return (
    <div class="flow-canvas" tabIndex={0} role="region" aria-label="Workflow canvas">
      <svg ref={svg} width={width} height={height} viewBox={`0 0 ${width} ${height}`} onPointerMove={moved} onPointerUp={released} onPointerDown={(e) => e.target === svg.current && onSelect(null)}>
        <defs>
          <marker id="flow-arrow" viewBox="0 0 10 10" refX="9" refY="5" markerWidth="7" markerHeight="7" orient="auto-start-reverse">
            <path d="M 0 0 L 10 5 L 0 10 z" class="arrow" />
          </marker>
        </defs>
        {flow.edges.map((e, index) => {
          const a = at.get(e.from);
          const b = at.get(e.to);
          if (!a || !b) return null;
          const d = edgePath(a.x + NODE_W, a.y + NODE_H / 2, b.x, b.y + NODE_H / 2);
          const isSelected = selected?.kind === 'edge' && selected.index === index;
          const label = `Edge ${e.from} to ${e.to}${e.branch ? `, branch ${e.branch}` : ''}`;
          return (
            <g key={`${e.from}-${e.to}-${e.branch ?? ''}`} class={`flow-edge${isSelected ? ' is-selected' : ''}`} tabindex={0} role="button" aria-label={label} aria-pressed={isSelected}
              onPointerDown={(ev) => { ev.stopPropagation(); onSelect({ kind: 'edge', index }); }} onKeyDown={(ev) => keys(ev, { kind: 'edge', index })}>
              <path d={d} class="edge-hit" />
              <path d={d} class="edge" marker-end="url(#flow-arrow)" />
              {e.branch && <text x={(a.x + NODE_W + b.x) / 2} y={(a.y + b.y + NODE_H) / 2 - 6} class="edge-label">{e.branch}</text>}
            </g>
          );
        })}
        {gesture?.kind === 'wire' && (() => {
          const a = at.get(gesture.from)!;
          return <path d={edgePath(a.x + NODE_W, a.y + NODE_H / 2, gesture.x, gesture.y)} class="edge edge-draft" />;
        })()}
        {flow.nodes.map((n) => {
          const isSelected = selected?.kind === 'node' && selected.id === n.id;
          const type = NODE_TYPES[n.type]?.label ?? n.type;
          return (
            <g key={n.id} data-node={n.id} class={`flow-node${isSelected ? ' is-selected' : ''}${faulty.has(n.id) ? ' is-faulty' : ''}`} transform={`translate(${n.position.x} ${n.position.y})`}>
              <g tabindex={0} role="button" aria-label={`${n.name || n.id} ${type}${faulty.has(n.id) ? ', has problems' : ''}`} aria-pressed={isSelected}
                onPointerDown={(ev) => startDrag(ev, n.id)} onKeyDown={(ev) => keys(ev, { kind: 'node', id: n.id })}>
                <rect width={NODE_W} height={NODE_H} rx="8" />
                {/* One text with a space between its lines, so its visible text reads as its name does. */}
                <text>
                  <tspan x="10" y="19" class="node-id">{n.name || n.id}</tspan>{' '}
                  <tspan x="10" y="37" class="node-type">{type}</tspan>
                </text>
              </g>
              {n.type !== 'end' && (
                <circle class="handle" cx={NODE_W} cy={NODE_H / 2} r="7" aria-hidden="true" data-handle={n.id} onPointerDown={(ev) => startWire(ev, n.id)}>
                  <title>Drag onto another node to connect</title>
                </circle>
              )}
            </g>
          );
        })}
      </svg>
    </div>
  );
}
