// The condition language: literals, paths into the run context, comparisons, &&, || and !, parsed by
// a small tokenizer and recursive-descent parser and evaluated over plain data. Nothing is ever run
// as code (no eval, no Function), and a path only reads an object's own properties, so
// `constructor` or `__proto__` lead nowhere.
//
//   expr := or;  or := and ('||' and)*;  and := cmp ('&&' cmp)*;
//   cmp := unary (('=='|'!='|'<'|'<='|'>'|'>=') unary)?;  unary := '!' unary | primary;
//   primary := number | string | true | false | null | path | '(' expr ')';
//   path := name ('.' name | '[' (number | string) ']')*

export const ROOTS = ['input', 'nodes', 'run'] as const;
const MAX_LENGTH = 2_000;
const MAX_DEPTH = 32;

export type Expr =
  | { kind: 'literal'; value: unknown }
  | { kind: 'path'; segments: Array<string | number> }
  | { kind: 'not'; operand: Expr }
  | { kind: 'logic'; op: '&&' | '||'; left: Expr; right: Expr }
  | { kind: 'compare'; op: string; left: Expr; right: Expr };

export class ExpressionError extends Error {}

type Token = { type: 'num' | 'str' | 'name' | 'op'; value: string | number; at: number };

const OPERATORS = ['==', '!=', '<=', '>=', '&&', '||', '<', '>', '!', '(', ')', '.', '[', ']'];

function tokenize(text: string): Token[] {
  const tokens: Token[] = [];
  let i = 0;
  while (i < text.length) {
    const c = text[i]!;
    if (/\s/.test(c)) {
      i++;
      continue;
    }
    const num = /^\d+(\.\d+)?/.exec(text.slice(i));
    if (num) {
      tokens.push({ type: 'num', value: Number(num[0]), at: i });
      i += num[0].length;
      continue;
    }
    if (c === '"' || c === "'") {
      let value = '';
      let j = i + 1;
      for (; j < text.length && text[j] !== c; j++) value += text[j] === '\\' && j + 1 < text.length ? text[++j] : text[j];
      if (j >= text.length) throw new ExpressionError(`unterminated string starting at ${i + 1}`);
      tokens.push({ type: 'str', value, at: i });
      i = j + 1;
      continue;
    }
    const name = /^[A-Za-z_][A-Za-z0-9_]*/.exec(text.slice(i));
    if (name) {
      tokens.push({ type: 'name', value: name[0], at: i });
      i += name[0].length;
      continue;
    }
    const op = OPERATORS.find((o) => text.startsWith(o, i));
    if (!op) throw new ExpressionError(`unexpected "${c}" at ${i + 1}`);
    tokens.push({ type: 'op', value: op, at: i });
    i += op.length;
  }
  return tokens;
}

export function parseExpression(text: string): Expr {
  if (text.length > MAX_LENGTH) throw new ExpressionError(`longer than ${MAX_LENGTH} characters`);
  const tokens = tokenize(text);
  let pos = 0;
  let depth = 0;
  const peek = () => tokens[pos];
  const isOp = (value: string) => peek()?.type === 'op' && peek()!.value === value;
  const where = () => (peek() ? `at ${peek()!.at + 1}` : 'at the end');
  const expect = (value: string) => {
    if (!isOp(value)) throw new ExpressionError(`expected "${value}" ${where()}`);
    pos++;
  };

  const nested = <T>(parse: () => T): T => {
    if (++depth > MAX_DEPTH) throw new ExpressionError(`nested deeper than ${MAX_DEPTH} levels`);
    try {
      return parse();
    } finally {
      depth--;
    }
  };
  const or = (): Expr => nested(() => {
    let left = and();
    while (isOp('||')) {
      pos++;
      left = { kind: 'logic', op: '||', left, right: and() };
    }
    return left;
  });
  const and = (): Expr => {
    let left = cmp();
    while (isOp('&&')) {
      pos++;
      left = { kind: 'logic', op: '&&', left, right: cmp() };
    }
    return left;
  };
  const cmp = (): Expr => {
    const left = unary();
    const op = peek();
    if (op?.type === 'op' && ['==', '!=', '<', '<=', '>', '>='].includes(op.value as string)) {
      pos++;
      return { kind: 'compare', op: op.value as string, left, right: unary() };
    }
    return left;
  };
  const unary = (): Expr => {
    if (isOp('!')) {
      pos++;
      return nested(() => ({ kind: 'not', operand: unary() }));
    }
    return primary();
  };
  const primary = (): Expr => {
    const t = peek();
    if (!t) throw new ExpressionError('unexpected end of expression');
    if (t.type === 'num' || t.type === 'str') {
      pos++;
      return { kind: 'literal', value: t.value };
    }
    if (isOp('(')) {
      pos++;
      const inner = or();
      expect(')');
      return inner;
    }
    if (t.type === 'name') {
      pos++;
      if (t.value === 'true' || t.value === 'false') return { kind: 'literal', value: t.value === 'true' };
      if (t.value === 'null') return { kind: 'literal', value: null };
      return path(t.value as string, t.at);
    }
    throw new ExpressionError(`unexpected "${t.value}" ${where()}`);
  };
  const path = (root: string, at: number): Expr => {
    if (!(ROOTS as readonly string[]).includes(root)) throw new ExpressionError(`unknown name "${root}" at ${at + 1}: paths start with ${ROOTS.join(', ')}`);
    const segments: Array<string | number> = [root];
    for (;;) {
      if (isOp('.')) {
        pos++;
        const name = peek();
        if (name?.type !== 'name' && name?.type !== 'num') throw new ExpressionError(`expected a name after "." ${where()}`);
        pos++;
        segments.push(name.type === 'num' ? Number(name.value) : (name.value as string));
      } else if (isOp('[')) {
        pos++;
        const key = peek();
        if (key?.type !== 'num' && key?.type !== 'str') throw new ExpressionError(`expected a number or string in [] ${where()}`);
        pos++;
        segments.push(key.value);
        expect(']');
      } else return { kind: 'path', segments };
    }
  };

  if (tokens.length === 0) throw new ExpressionError('empty expression');
  const expr = or();
  if (pos < tokens.length) throw new ExpressionError(`unexpected "${peek()!.value}" ${where()}`);
  return expr;
}

/** Reads a path through own properties only; a missing step gives undefined. */
export function readPath(scope: unknown, segments: ReadonlyArray<string | number>): unknown {
  let value = scope;
  for (const segment of segments) {
    if (value === null || typeof value !== 'object' || !Object.hasOwn(value, segment)) return undefined;
    value = (value as Record<string | number, unknown>)[segment];
  }
  return value;
}

export function evaluate(expr: Expr, scope: unknown): unknown {
  switch (expr.kind) {
    case 'literal':
      return expr.value;
    case 'path':
      return readPath(scope, expr.segments);
    case 'not':
      return !truthy(evaluate(expr.operand, scope));
    case 'logic': {
      const left = truthy(evaluate(expr.left, scope));
      if (expr.op === '&&') return left && truthy(evaluate(expr.right, scope));
      return left || truthy(evaluate(expr.right, scope));
    }
    case 'compare':
      return compare(expr.op, evaluate(expr.left, scope), evaluate(expr.right, scope));
  }
}

function compare(op: string, a: unknown, b: unknown): boolean {
  if (op === '==') return same(a, b);
  if (op === '!=') return !same(a, b);
  const bothNumbers = typeof a === 'number' && typeof b === 'number';
  const bothStrings = typeof a === 'string' && typeof b === 'string';
  if (!bothNumbers && !bothStrings) throw new ExpressionError(`cannot order ${describe(a)} and ${describe(b)} with "${op}": both sides must be numbers or both strings`);
  const [x, y] = [a as number | string, b as number | string];
  return op === '<' ? x < y : op === '<=' ? x <= y : op === '>' ? x > y : x >= y;
}

/** Equality of data: primitives by value (undefined equals null), objects by their JSON. */
function same(a: unknown, b: unknown): boolean {
  if (a === undefined) a = null;
  if (b === undefined) b = null;
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return a === b;
  return JSON.stringify(a) === JSON.stringify(b);
}

function truthy(value: unknown): boolean {
  return Boolean(value);
}

function describe(value: unknown): string {
  return value === null || value === undefined ? 'null' : Array.isArray(value) ? 'an array' : `a ${typeof value}`;
}

/** Every path an expression reads (for checking node references on save). */
export function pathsOf(expr: Expr): Array<Array<string | number>> {
  switch (expr.kind) {
    case 'literal':
      return [];
    case 'path':
      return [expr.segments];
    case 'not':
      return pathsOf(expr.operand);
    default:
      return [...pathsOf(expr.left), ...pathsOf(expr.right)];
  }
}
