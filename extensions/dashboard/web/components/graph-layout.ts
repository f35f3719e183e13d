// Where each node of a workflow graph goes: columns by shortest distance from the start (or from any
// node nothing points to), rows in the order the nodes were written. Cycles are cut where they close.
export interface GraphNode {
  id: string;
  type: string;
  /** Where the editor left it (workflow-editor.tsx); a graph whose nodes all have one is drawn so. */
  position?: { x: number; y: number };
}
export interface GraphEdge {
  from: string;
  to: string;
  branch?: string;
}

export const W = 150;
export const H = 44;
export const GAP_X = 60;
const GAP_Y = 24;

/** Column of each node: its shortest distance from a node nothing points to (cycles are cut). */
export function layout(nodes: GraphNode[], edges: GraphEdge[]): Map<string, { x: number; y: number }> {
  if (nodes.length > 0 && nodes.every((n) => n.position)) {
    const left = Math.min(...nodes.map((n) => n.position!.x));
    const top = Math.min(...nodes.map((n) => n.position!.y));
    return new Map(nodes.map((n) => [n.id, { x: 10 + n.position!.x - left, y: 10 + n.position!.y - top }]));
  }
  const depth = new Map<string, number>();
  const targets = new Set(edges.map((e) => e.to));
  const queue = nodes.filter((n) => n.type === 'start' || !targets.has(n.id)).map((n) => n.id);
  for (const id of queue) depth.set(id, 0);
  for (let i = 0; i < queue.length; i++) {
    const id = queue[i]!;
    for (const edge of edges) {
      if (edge.from === id && !depth.has(edge.to)) {
        depth.set(edge.to, depth.get(id)! + 1);
        queue.push(edge.to);
      }
    }
  }
  const rows = new Map<number, number>();
  const at = new Map<string, { x: number; y: number }>();
  for (const node of nodes) {
    const column = depth.get(node.id) ?? 0;
    const row = rows.get(column) ?? 0;
    rows.set(column, row + 1);
    at.set(node.id, { x: 10 + column * (W + GAP_X), y: 10 + row * (H + GAP_Y) });
  }
  return at;
}
