// The dashboard's pure parts, run as the browser runs them: a session's events folded into what a
// person reads (a replay after a reconnect adds nothing twice), and the workflow graph's layout.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { layout } from '../../extensions/dashboard/web/components/graph-layout.js';
import { addEvent, emptyTranscript } from '../../extensions/dashboard/web/transcript.js';

describe('the dashboard transcript and graph layout', () => {
  const events = [
    { type: 'user_message', content: 'write it', turn: 1 },
    { type: 'thinking_delta', thinking: 'a ', turn: 1 },
    { type: 'thinking_delta', thinking: 'plan', turn: 1 },
    { type: 'text_delta', text: 'On ', turn: 1 },
    { type: 'text_delta', text: 'it.', turn: 1 },
    { type: 'tool_use', id: 't1', name: 'write_file', input: { path: 'a' }, turn: 1 },
    { type: 'approval', requestId: 'r1', toolName: 'write_file', behavior: 'allow', by: 'local', turn: 1 },
    { type: 'tool_result', id: 't1', name: 'write_file', output: 'ok', isError: false, turn: 1 },
    { type: 'turn_end', cost: 1500, turn: 1 },
    { type: 'text_delta', text: 'Done.', turn: 2 },
    { type: 'turn_end', cost: 500, turn: 2 },
  ];

  it('folds deltas into messages, pairs tool calls with results, and sums the cost', () => {
    const t = events.reduce((acc, event, i) => addEvent(acc, i + 1, event), emptyTranscript());
    assert.deepEqual(t.items, [
      { kind: 'user', text: 'write it' },
      { kind: 'thinking', text: 'a plan', turn: 1 },
      { kind: 'assistant', text: 'On it.', turn: 1 },
      { kind: 'tool', id: 't1', name: 'write_file', input: { path: 'a' }, output: 'ok', isError: false },
      { kind: 'note', text: 'write_file: allowed by local' },
      { kind: 'assistant', text: 'Done.', turn: 2 },
    ]);
    assert.equal(t.cost, 2000);
    assert.equal(t.lastSeq, events.length);
  });

  it('ignores events it has seen, so a replay after a reconnect changes nothing', () => {
    let t = events.reduce((acc, event, i) => addEvent(acc, i + 1, event), emptyTranscript());
    const before = t;
    t = events.reduce((acc, event, i) => addEvent(acc, i + 1, event), t);
    assert.equal(t, before);
  });

  it('lays a graph out in columns by distance from the start, a join after its branches, cycles cut', () => {
    const at = layout(
      [{ id: 'start', type: 'start' }, { id: 'a', type: 'agent_session' }, { id: 'b', type: 'delay' }, { id: 'join', type: 'join' }, { id: 'end', type: 'end' }],
      [{ from: 'start', to: 'a' }, { from: 'start', to: 'b' }, { from: 'a', to: 'join' }, { from: 'b', to: 'join' }, { from: 'join', to: 'end' }, { from: 'end', to: 'a' }],
    );
    const column = (id: string) => at.get(id)!.x;
    assert.ok(column('start') < column('a'));
    assert.equal(column('a'), column('b'));
    assert.notEqual(at.get('a')!.y, at.get('b')!.y);
    assert.ok(column('join') > column('a') && column('end') > column('join'));
  });
});
