// The inspector's readable rows (src/inspector/rows.ts): the words of acts, calls and events that
// both the live logs and the trace view show.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { actRow, callRow, eventRow, outcomeWords } from '../../src/inspector/rows.ts';

const s = suite('inspector rows');

const refused = {
  status: 'action_failed',
  execution: 'dispatched_unknown',
  observation: 'captured',
  postcondition: 'not_requested',
  completed: [],
  events: [],
  error_type: 'click_intercepted',
  error_text: 'the click at (480, 620) would land on region "Cookie banner"',
  hit: { role: 'region', name: 'Cookie banner', tag: 'div', ref: '@40', dismiss_ref: '@41' },
} as const;

s('a refused click says what covered its target, and how to dismiss it', () => {
  assert.equal(callRow('act', { state_id: 's3', action: 'click', ref: '@12' }, refused, undefined), {
    text: 'act click @12 → refused: click_intercepted — covered by region "Cookie banner" @40; @41 dismisses it',
    tone: 'refused',
  });
});

s('an act that went through, one that failed after dispatch, and a batch', () => {
  const done = { status: 'completed', execution: 'completed' } as const;
  assert.equal(actRow(['fill @5 "ada"', 'press Enter'], done), { text: 'act fill @5 "ada", press Enter → completed', tone: 'ok' });
  const failed = {
    status: 'action_failed',
    execution: 'dispatched_unknown',
    error_type: 'timeout',
    error_text: 'no DOMContentLoaded in 30000 ms',
  } as const;
  assert.is(outcomeWords(failed), 'action failed: timeout — no DOMContentLoaded in 30000 ms');
  const params = {
    state_id: 's1',
    actions: [{ action: 'fill', ref: '@5', secret: 'GITHUB_TOKEN' }, { action: 'check', ref: '@6', checked: 'no' }],
  };
  assert.is(
    callRow('act', params, { status: 'verified', execution: 'completed' }, undefined).text,
    'act fill @5 secret GITHUB_TOKEN, uncheck @6 → verified',
  );
  assert.is(
    callRow('act', { action: 'click', x: 120, y: 40 }, { status: 'completed', execution: 'completed' }, undefined).text,
    'act click at 120, 40 → completed',
  );
});

s('a call that failed on the wire names its error word', () => {
  const error = { code: -32007, message: 'a dialog is open', data: { error_type: 'modal_blocked' } };
  assert.equal(callRow('observe', {}, undefined, error), { text: 'observe → error: modal_blocked — a dialog is open', tone: 'failed' });
  assert.is(callRow('dialog.handle', { accept: true }, { handled: true }, undefined).text, 'dialog.handle accept=true → ok');
});

s('events read as words, not JSON', () => {
  assert.is(
    eventRow('dialog', { type: 'confirm', message: 'Delete?', url: 'http://x/', handled: 'accepted' }).text,
    'dialog confirm "Delete?" → accepted',
  );
  assert.is(eventRow('dialog', { type: 'alert', message: 'Hi', url: 'http://x/' }).text, 'dialog alert "Hi" (waiting for an answer)');
  const entry = {
    seq: 3,
    method: 'GET',
    url: 'http://127.0.0.1:8080/api/items',
    resource_type: 'fetch',
    state: 'finished',
    status: 200,
    duration_ms: 12.4,
    time: 1,
  } as const;
  assert.is(eventRow('network', entry).text, 'network GET 200 127.0.0.1:8080/api/items 12 ms');
  assert.is(
    eventRow('network', { ...entry, state: 'failed', status: undefined, blocked_by: '*.ads.example' }).text,
    'network GET blocked by *.ads.example 127.0.0.1:8080/api/items 12 ms',
  );
  assert.is(eventRow('console', { level: 'warn', text: 'careful: token=[redacted]' }).text, 'console warn careful: token=[redacted]');
  assert.is(eventRow('navigation', { frame_id: 'F', url: 'http://x/next', same_document: false }).text, 'navigation http://x/next');
  const act = {
    actions: ['click'],
    state_id: 's2',
    status: 'stale_observation',
    execution: 'not_dispatched',
    observation: 'captured',
    postcondition: 'not_requested',
    completed: [],
    error_type: 'stale_state',
  } as const;
  assert.equal(eventRow('act', act), { text: 'act click → refused: stale_state', tone: 'refused' });
});

s.run();
