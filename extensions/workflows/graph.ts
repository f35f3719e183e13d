// Validating a workflow's graph on save. Every problem is collected and reported at once, each naming
// the node or edge at fault: one start, known types, valid configs, edges between known nodes with the
// branches their source allows, every node reachable from the start, and no cycle except through a
// loop node's body (which the loop bounds).
import type { ValidateFunction } from 'ajv';
import { validationError } from '../../protocol/errors.js';
import { schemaValidator } from '../../protocol/validate.js';
import { ExpressionError, parseExpression, pathsOf } from './expression.js';
import { BRANCHES, CONFIG_SCHEMAS, EXPRESSION_FIELDS, NODE_TYPES, TEMPLATE_FIELDS, type Graph, type NodeType, type WorkflowNode } from './node-types.js';
import { templatePaths } from './template.js';

export function validateGraph(graph: Graph): void {
  const problems: string[] = [];
  const byId = new Map<string, WorkflowNode>();
  for (const node of graph.nodes) {
    if (byId.has(node.id)) problems.push(`node "${node.id}" is declared twice`);
    byId.set(node.id, node);
  }
  for (const node of graph.nodes) problems.push(...checkNode(node, byId));

  const starts = graph.nodes.filter((n) => n.type === 'start');
  if (starts.length !== 1) problems.push(starts.length === 0 ? 'the workflow has no start node' : `the workflow has ${starts.length} start nodes (${starts.map((n) => n.id).join(', ')}); it needs exactly one`);

  problems.push(...checkEdges(graph, byId));
  if (problems.length === 0) {
    problems.push(...unreachable(graph, starts[0]!.id));
    const cycle = findCycle(graph, byId);
    if (cycle) problems.push(`the edges form a cycle ${cycle.join(' → ')} that does not pass through a loop node's body; make it a loop node to bound it`);
  }
  if (problems.length > 0) {
    throw validationError(`the workflow is invalid: ${problems.join('; ')}`, { problems });
  }
}

const validators = new Map<NodeType, ValidateFunction>();
const configValidator = (type: NodeType): ValidateFunction => {
  let validator = validators.get(type);
  if (!validator) validators.set(type, (validator = schemaValidator(CONFIG_SCHEMAS[type])));
  return validator;
};

function checkNode(node: WorkflowNode, byId: Map<string, WorkflowNode>): string[] {
  if (!(NODE_TYPES as readonly string[]).includes(node.type)) return [`node "${node.id}" has unknown type "${node.type}" (known: ${NODE_TYPES.join(', ')})`];
  const config = node.config ?? {};
  const validator = configValidator(node.type);
  if (!validator(config)) {
    return (validator.errors ?? []).map((e) => `node "${node.id}" (${node.type}): config${e.instancePath.replace(/\//g, '.')} ${e.message}`);
  }
  const problems: string[] = [];
  const checkRefs = (field: string, paths: Array<Array<string | number>>) => {
    for (const path of paths) {
      if (path[0] === 'nodes' && path.length > 1 && !byId.has(String(path[1]))) problems.push(`node "${node.id}": config.${field} refers to unknown node "${path[1]}"`);
    }
  };
  for (const field of EXPRESSION_FIELDS[node.type] ?? []) {
    if (config[field] === undefined) continue;
    try {
      checkRefs(field, pathsOf(parseExpression(String(config[field]))));
    } catch (err) {
      if (!(err instanceof ExpressionError)) throw err;
      problems.push(`node "${node.id}": config.${field} is not a valid expression: ${err.message}`);
    }
  }
  for (const field of TEMPLATE_FIELDS[node.type] ?? []) {
    try {
      checkRefs(field, templatePaths(config[field]));
    } catch (err) {
      if (!(err instanceof ExpressionError)) throw err;
      problems.push(`node "${node.id}": config.${field} has a bad placeholder: ${err.message}`);
    }
  }
  return problems;
}

function checkEdges(graph: Graph, byId: Map<string, WorkflowNode>): string[] {
  const problems: string[] = [];
  const seen = new Set<string>();
  const out = new Map<string, string[]>();
  const incoming = new Map<string, number>();
  for (const edge of graph.edges) {
    const label = `edge ${edge.from} → ${edge.to}${edge.branch ? ` (${edge.branch})` : ''}`;
    const from = byId.get(edge.from);
    const to = byId.get(edge.to);
    if (!from || !to) {
      problems.push(`${label} names unknown node "${!from ? edge.from : edge.to}"`);
      continue;
    }
    if (edge.from === edge.to) problems.push(`${label} connects a node to itself`);
    const key = `${edge.from}\0${edge.to}\0${edge.branch ?? ''}`;
    if (seen.has(key)) problems.push(`${label} is declared twice`);
    seen.add(key);
    if (to.type === 'start') problems.push(`${label} enters the start node; nothing may`);
    if (from.type === 'end') problems.push(`${label} leaves an end node; nothing may`);
    const allowed = BRANCHES[from.type as NodeType];
    if (edge.branch !== undefined && !allowed?.names.includes(edge.branch)) {
      problems.push(`${label}: a ${from.type} node's edges ${allowed ? `take the branches ${allowed.names.join(', ')}` : 'take no branch'}`);
    }
    if (from.type === 'loop' && edge.branch === undefined) problems.push(`${label}: a loop node's edges must say "body" or "exit"`);
    if (from.type === 'condition' && edge.branch === undefined) problems.push(`${label}: a condition node's edges must say "true" or "false"`);
    out.set(edge.from, [...(out.get(edge.from) ?? []), edge.branch ?? '']);
    incoming.set(edge.to, (incoming.get(edge.to) ?? 0) + 1);
  }
  for (const node of graph.nodes) {
    const branches = out.get(node.id) ?? [];
    const rule = BRANCHES[node.type];
    for (const name of rule?.required ?? []) if (!branches.includes(name)) problems.push(`node "${node.id}" (${node.type}) needs an edge with branch "${name}"`);
    const repeated = branches.filter((b, i) => branches.indexOf(b) !== i);
    if (node.type !== 'parallel' && repeated.length > 0) {
      problems.push(`node "${node.id}" (${node.type}) has several edges${repeated[0] ? ` on branch "${repeated[0]}"` : ''}; only a parallel node forks`);
    }
    if (node.type === 'parallel' && branches.length < 2) problems.push(`parallel node "${node.id}" needs at least two outgoing edges`);
    if (node.type === 'join' && (incoming.get(node.id) ?? 0) < 2) problems.push(`join node "${node.id}" needs at least two incoming edges`);
  }
  return problems;
}

function unreachable(graph: Graph, start: string): string[] {
  const seen = new Set([start]);
  const queue = [start];
  while (queue.length > 0) {
    const id = queue.shift()!;
    for (const edge of graph.edges) if (edge.from === id && !seen.has(edge.to)) seen.add(edge.to) && queue.push(edge.to);
  }
  const lost = graph.nodes.filter((n) => !seen.has(n.id)).map((n) => n.id);
  return lost.length > 0 ? [`node${lost.length > 1 ? 's' : ''} ${lost.map((id) => `"${id}"`).join(', ')} cannot be reached from the start`] : [];
}

/** A cycle left when every loop node's body edge is taken away (those cycles the loop bounds), or undefined. */
function findCycle(graph: Graph, byId: Map<string, WorkflowNode>): string[] | undefined {
  const next = new Map<string, string[]>();
  for (const edge of graph.edges) {
    if (byId.get(edge.from)!.type === 'loop' && edge.branch === 'body') continue;
    next.set(edge.from, [...(next.get(edge.from) ?? []), edge.to]);
  }
  const state = new Map<string, 'open' | 'done'>();
  const stack: string[] = [];
  const visit = (id: string): string[] | undefined => {
    state.set(id, 'open');
    stack.push(id);
    for (const to of next.get(id) ?? []) {
      if (state.get(to) === 'open') return [...stack.slice(stack.indexOf(to)), to];
      if (!state.has(to)) {
        const found = visit(to);
        if (found) return found;
      }
    }
    stack.pop();
    state.set(id, 'done');
    return undefined;
  };
  for (const node of graph.nodes) {
    if (!state.has(node.id)) {
      const found = visit(node.id);
      if (found) return found;
    }
  }
  return undefined;
}

/** Nodes of a loop's body: reachable from its body edge without passing through the loop node again. */
export function loopBody(graph: Graph, loopId: string): Set<string> {
  const body = new Set<string>();
  const queue = graph.edges.filter((e) => e.from === loopId && e.branch === 'body').map((e) => e.to);
  while (queue.length > 0) {
    const id = queue.shift()!;
    if (id === loopId || body.has(id)) continue;
    body.add(id);
    for (const edge of graph.edges) if (edge.from === id) queue.push(edge.to);
  }
  return body;
}
