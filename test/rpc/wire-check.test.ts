// The test client's wire check (test/helpers/wire-check.ts): results, errors and events are held
// against their schemas, and a field no schema declares fails as surely as a missing one.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { notificationProblem, replyProblem } from '../helpers/wire-check.ts';

const s = suite('wire check');

const element = { ref: '@1', role: 'button', name: 'Save', frame_id: 'F', visible: true, in_viewport: true };
const observation = {
  state_id: 'st_1',
  session_id: 's_1',
  target_id: 'T',
  frame_id: 'F',
  document: { frame_id: 'F', loader_id: 'L', url: 'http://127.0.0.1/', ready_state: 'complete' },
  url: 'http://127.0.0.1/',
  title: 'Form',
  tree: 'button "Save" @1',
  elements: [element],
  frames: [{ frame_id: 'F', url: 'http://127.0.0.1/', status: 'observed' }],
  truncated: false,
};
const act = {
  status: 'completed',
  execution: 'completed',
  observation: 'captured',
  postcondition: 'not_requested',
  completed: [0],
  events: [{
    kind: 'navigation',
    seq: 3,
    target_id: 'T',
    frame_id: 'F',
    time: 1,
    data: { frame_id: 'F', url: 'http://127.0.0.1/', same_document: true },
  }],
  fresh_state: observation,
};
const result = (value: unknown) => ({ jsonrpc: '2.0', id: 1, result: value });

s('results that are what their schemas say pass', () => {
  assert.is(replyProblem('observe', result(observation)), undefined);
  assert.is(replyProblem('act', result(act)), undefined);
  assert.is(replyProblem('file_chooser.resolve', result({ cancelled: true })), undefined);
  assert.is(replyProblem('cdp.send', result({ result: { type: 'number', value: 42 } })), undefined);
});

s('an undeclared field fails, with its path, however deep', () => {
  assert.match(replyProblem('observe', result({ ...observation, score: 1 }))!, /score: not declared/);
  const deep = { ...act, fresh_state: { ...observation, elements: [{ ...element, bounds: [0, 0, 1, 1] }] } };
  assert.match(replyProblem('act', result(deep))!, /fresh_state\.elements\.0\.bounds: not declared/);
  const eventData = { ...act, events: [{ ...act.events[0]!, data: { ...act.events[0]!.data, extra: true } }] };
  assert.match(replyProblem('act', result(eventData))!, /events\.0\.data\.extra: not declared/);
});

s('missing fields, wrong words and broken invariants fail', () => {
  const { tree: _tree, ...noTree } = observation;
  assert.match(replyProblem('observe', result(noTree))!, /tree/);
  assert.match(replyProblem('act', result({ ...act, status: 'done' }))!, /status/);
  const { fresh_state: _fresh, ...captured } = act;
  assert.match(replyProblem('act', result(captured))!, /fresh_state/, 'captured without fresh_state');
  assert.match(replyProblem('no.such.method', result({}))!, /does not have/);
});

s('errors: a §3 word, the code that goes with it, data open to details', () => {
  const error = (code: number, data: unknown) => ({ jsonrpc: '2.0', id: 1, error: { code, message: 'm', data } });
  assert.is(replyProblem('tabs.close', error(-32008, { error_type: 'last_tab', target_id: 'T' })), undefined);
  assert.match(replyProblem('tabs.close', error(-32000, { error_type: 'last_tab' }))!, /code -32000, not -32008/);
  assert.match(replyProblem('observe', error(-32011, { error_type: 'too_slow' }))!, /error_type/);
  assert.match(replyProblem('observe', error(-32602, { error_type: 'invalid_params', issues: 'bad' }))!, /issues/);
});

s('events: by kind, strictly; another notification method fails', () => {
  const event = {
    subscription_id: 'sub_1',
    seq: 1,
    kind: 'console',
    session_id: 's_1',
    target_id: 'T',
    time: 1,
    data: { level: 'log', text: 'hi' },
  };
  assert.is(notificationProblem('event', event), undefined);
  assert.is(notificationProblem('event', { ...event, dropped: 3 }), undefined);
  assert.match(notificationProblem('event', { ...event, kind: 'teleport' })!, /kind/);
  assert.match(notificationProblem('event', { ...event, data: { level: 'log', text: 'hi', args: [] } })!, /data\.args: not declared/);
  assert.match(notificationProblem('event', { ...event, kind: 'dialog' })!, /data/);
  assert.match(notificationProblem('progress', {})!, /progress/);
});

s.run();
