// The workflows' condition language on its own: parsing, evaluation over plain data, the paths an
// expression reads, and what it refuses (never running anything as code).
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { evaluate, ExpressionError, parseExpression, pathsOf, readPath } from '../../extensions/workflows/expression.js';

const run = (text: string, scope: unknown = {}) => evaluate(parseExpression(text), scope);
const scope = { input: { n: 3, name: 'roost', tags: ['a', 'b'], nested: { ok: true } }, nodes: { fetch: { output: { status: 200 } } } };

describe('workflow expressions', () => {
  it('compares numbers, strings and data, with && binding tighter than ||', () => {
    assert.equal(run('input.n > 2 && input.name == "roost"', scope), true);
    assert.equal(run("input.name < 'z' || false", scope), true);
    assert.equal(run('nodes.fetch.output.status != 200 || input.n >= 3 && !input.nested.ok', scope), false);
    assert.equal(run('(nodes.fetch.output.status != 200 || input.n >= 3) && input.nested.ok', scope), true);
    assert.equal(run('input.tags[1] == "b" && input["name"] == \'roost\'', scope), true);
    assert.equal(run('input.nested == input.nested', scope), true);
    assert.equal(run('input.missing == null && input.tags[9] == null', scope), true);
    assert.equal(run('2.5 <= 2.50 && "a\\"b" == \'a"b\'', scope), true);
  });

  it('reads only own properties: constructor and __proto__ lead nowhere', () => {
    assert.equal(run('input.constructor == null && input.__proto__ == null && input.name.length == null', scope), true);
    assert.equal(readPath({ a: [10, 20] }, ['a', 1]), 20);
    assert.equal(readPath({ a: 1 }, ['a', 'b']), undefined);
  });

  it('refuses to order values of different kinds', () => {
    assert.throws(() => run('input.n < "4"', scope), /cannot order a number and a string with "<"/);
    assert.throws(() => run('input.missing > 1', scope), /cannot order null and a number/);
    assert.throws(() => run('input.tags >= input.tags', scope), /cannot order an array and an array/);
  });

  it('names what is wrong and where, for text that is not an expression', () => {
    const refusals: Array<[string, RegExp]> = [
      ['', /empty expression/],
      ['input.n >', /unexpected end of expression/],
      ['input.n = 1', /unexpected "="/],
      ['"open', /unterminated string starting at 1/],
      ['(input.n', /expected "\)" at the end/],
      ['input.n 1', /unexpected "1" at 9/],
      ['x'.repeat(2_001), /longer than 2000 characters/],
      ['!'.repeat(40) + 'true', /nested deeper than 32 levels/],
      ['('.repeat(40) + 'true' + ')'.repeat(40), /nested deeper than 32 levels/],
    ];
    for (const [text, message] of refusals) assert.throws(() => parseExpression(text), (err: Error) => err instanceof ExpressionError && message.test(err.message), text.slice(0, 40));
  });

  it('lists every path an expression reads', () => {
    assert.deepEqual(pathsOf(parseExpression('!(input.a == nodes.x.output["k"]) || run.id == 1 && true')), [['input', 'a'], ['nodes', 'x', 'output', 'k'], ['run', 'id']]);
    assert.deepEqual(pathsOf(parseExpression('1 == 1')), []);
  });
});
