// The pure mapping from how an act ended to the words of its result (src/actions/outcome.ts,
// `summarize`), against PROTOCOL.md §7 "Result": one table of endings, then the rules of §7
// checked over every ending the act layer can describe.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { type ActEnding, type ActErrorType, type ActSummary, summarize } from '../../src/actions/outcome.ts';

type Row = [scenario: string, ending: ActEnding, expected: ActSummary];

const none = { began: false, acknowledged: true, requested: false, captured: false } as const;
const ran = { began: true, acknowledged: true, captured: true } as const;
const failed = (type: ActErrorType, check: boolean) => ({ type, check });

const ROWS: Row[] = [
  // Refused by the checks of steps 2–6: nothing began.
  ['unknown state', { ...none, failure: failed('unknown_state', true) }, {
    status: 'stale_observation',
    execution: 'not_dispatched',
    observation: 'unavailable',
    postcondition: 'not_requested',
    errorType: 'unknown_state',
  }],
  ['stale state, expect given', { ...none, requested: true, failure: failed('stale_state', true) }, {
    status: 'stale_observation',
    execution: 'not_dispatched',
    observation: 'unavailable',
    postcondition: 'unknown',
    errorType: 'stale_state',
  }],
  ['target changed', { ...none, failure: failed('target_changed', true) }, {
    status: 'stale_observation',
    execution: 'not_dispatched',
    observation: 'unavailable',
    postcondition: 'not_requested',
    errorType: 'target_changed',
  }],
  ['a crashed page before dispatch', { ...none, failure: failed('document_changed', true) }, {
    status: 'stale_observation',
    execution: 'not_dispatched',
    observation: 'unavailable',
    postcondition: 'not_requested',
    errorType: 'document_changed',
  }],
  ['ref not found', { ...none, failure: failed('ref_not_found', true) }, {
    status: 'stale_reference',
    execution: 'not_dispatched',
    observation: 'unavailable',
    postcondition: 'not_requested',
    errorType: 'ref_not_found',
  }],
  ['modal blocked', { ...none, failure: failed('modal_blocked', true) }, {
    status: 'action_failed',
    execution: 'not_dispatched',
    observation: 'unavailable',
    postcondition: 'not_requested',
    errorType: 'modal_blocked',
  }],
  ['forbidden upload path', { ...none, failure: failed('forbidden', true) }, {
    status: 'action_failed',
    execution: 'not_dispatched',
    observation: 'unavailable',
    postcondition: 'not_requested',
    errorType: 'forbidden',
  }],
  ['a timeout before anything began (a page in a loop)', { ...none, failure: failed('timeout', false) }, {
    status: 'action_failed',
    execution: 'not_dispatched',
    observation: 'unavailable',
    postcondition: 'not_requested',
    errorType: 'timeout',
  }],
  ['the browser gone before dispatch', { ...none, failure: failed('browser_unavailable', false) }, {
    status: 'action_failed',
    execution: 'not_dispatched',
    observation: 'unavailable',
    postcondition: 'not_requested',
    errorType: 'browser_unavailable',
  }],
  ['cancelled while queued', { ...none, requested: true, failure: failed('operation_cancelled', false) }, {
    status: 'outcome_unknown',
    execution: 'not_dispatched',
    observation: 'unavailable',
    postcondition: 'unknown',
    errorType: 'operation_cancelled',
  }],
  ['request_id conflict, expect given', { ...none, requested: true, failure: failed('request_id_conflict', false) }, {
    status: 'request_id_conflict',
    execution: 'not_dispatched',
    observation: 'unavailable',
    postcondition: 'unknown',
    errorType: 'request_id_conflict',
  }],

  // A check or the step itself failed once dispatch had begun.
  ['click intercepted', { ...ran, requested: false, acknowledged: false, failure: failed('click_intercepted', true) }, {
    status: 'action_failed',
    execution: 'dispatched_unknown',
    observation: 'captured',
    postcondition: 'not_requested',
    errorType: 'click_intercepted',
  }],
  ['a later node went stale mid-batch', { ...ran, requested: false, failure: failed('node_detached', true) }, {
    status: 'stale_reference',
    execution: 'dispatched_unknown',
    observation: 'captured',
    postcondition: 'not_requested',
    errorType: 'node_detached',
  }],
  ["a later action's frame removed mid-batch", { ...ran, requested: false, failure: failed('frame_detached', true) }, {
    status: 'action_failed',
    execution: 'dispatched_unknown',
    observation: 'captured',
    postcondition: 'not_requested',
    errorType: 'frame_detached',
  }],
  ['a navigation error', { ...ran, requested: false, failure: failed('navigation_failed', true) }, {
    status: 'action_failed',
    execution: 'dispatched_unknown',
    observation: 'captured',
    postcondition: 'not_requested',
    errorType: 'action_failed',
  }],

  // Cut short before a step was acknowledged.
  ['a navigation that outlasts the budget', { ...ran, requested: false, acknowledged: false, failure: failed('timeout', false) }, {
    status: 'action_failed',
    execution: 'dispatched_unknown',
    observation: 'captured',
    postcondition: 'not_requested',
    errorType: 'timeout',
  }],
  [
    'cancelled mid-input',
    { ...ran, requested: false, acknowledged: false, captured: false, failure: failed('operation_cancelled', false) },
    {
      status: 'outcome_unknown',
      execution: 'dispatched_unknown',
      observation: 'unavailable',
      postcondition: 'not_requested',
      errorType: 'operation_cancelled',
    },
  ],
  ['a dialog opened by the input', { ...ran, requested: false, acknowledged: false, interruption: 'dialog' }, {
    status: 'interrupted',
    execution: 'dispatched_unknown',
    observation: 'captured',
    postcondition: 'not_requested',
  }],

  // Every step acknowledged.
  ['a click', { ...ran, requested: false }, {
    status: 'completed',
    execution: 'completed',
    observation: 'captured',
    postcondition: 'not_requested',
  }],
  ['check on a box already checked', { ...ran, began: false, requested: false }, {
    status: 'completed',
    execution: 'not_dispatched',
    observation: 'captured',
    postcondition: 'not_requested',
  }],
  ['a popup stopped the batch, expect given', { ...ran, requested: true, interruption: 'popup' }, {
    status: 'interrupted',
    execution: 'completed',
    observation: 'captured',
    postcondition: 'unknown',
  }],
  ['a navigation stopped the batch', { ...ran, requested: false, interruption: 'navigation' }, {
    status: 'interrupted',
    execution: 'completed',
    observation: 'captured',
    postcondition: 'not_requested',
  }],
  ['expect met', { ...ran, requested: true, verdict: 'met' }, {
    status: 'verified',
    execution: 'completed',
    observation: 'captured',
    postcondition: 'met',
  }],
  ['expect unmet', { ...ran, requested: true, verdict: 'unmet' }, {
    status: 'condition_not_met',
    execution: 'completed',
    observation: 'captured',
    postcondition: 'unmet',
  }],
  ['wait_for met, then the capture failed', {
    ...ran,
    requested: true,
    verdict: 'met',
    captured: false,
    captureLost: 'browser_unavailable',
  }, { status: 'verified', execution: 'completed', observation: 'unavailable', postcondition: 'met', errorType: 'browser_unavailable' }],
  ['an invalid selector in expect', { ...ran, requested: true, failure: failed('invalid_params', false) }, {
    status: 'action_failed',
    execution: 'completed',
    observation: 'captured',
    postcondition: 'unknown',
    errorType: 'invalid_params',
  }],
  ['wait_for met, then expect could not be checked', {
    ...ran,
    requested: true,
    verdict: 'met',
    failure: failed('document_changed', false),
  }, { status: 'action_failed', execution: 'completed', observation: 'captured', postcondition: 'unknown', errorType: 'document_changed' }],
  ['the browser killed mid wait_for', { ...ran, requested: true, captured: false, failure: failed('browser_unavailable', false) }, {
    status: 'action_failed',
    execution: 'completed',
    observation: 'unavailable',
    postcondition: 'unknown',
    errorType: 'browser_unavailable',
  }],
  ['the tab closed mid wait_for', { ...ran, requested: true, captured: false, failure: failed('target_not_found', false) }, {
    status: 'action_failed',
    execution: 'completed',
    observation: 'unavailable',
    postcondition: 'unknown',
    errorType: 'target_not_found',
  }],
  ['the renderer crashed mid wait_for', { ...ran, requested: true, failure: failed('document_changed', false) }, {
    status: 'action_failed',
    execution: 'completed',
    observation: 'captured',
    postcondition: 'unknown',
    errorType: 'document_changed',
  }],
  ['cancelled mid wait_for', { ...ran, requested: true, captured: false, failure: failed('operation_cancelled', false) }, {
    status: 'outcome_unknown',
    execution: 'completed',
    observation: 'unavailable',
    postcondition: 'unknown',
    errorType: 'operation_cancelled',
  }],
  ['a click that closed its own tab', { ...ran, requested: false, captured: false, captureLost: 'target_not_found' }, {
    status: 'completed',
    execution: 'completed',
    observation: 'unavailable',
    postcondition: 'not_requested',
    errorType: 'target_not_found',
  }],
  ['the capture failed for no known reason', { ...ran, requested: false, captured: false }, {
    status: 'completed',
    execution: 'completed',
    observation: 'unavailable',
    postcondition: 'not_requested',
  }],
  ['asked for, never evaluated, no reason given (a caller bug)', { ...ran, requested: true }, {
    status: 'action_failed',
    execution: 'completed',
    observation: 'captured',
    postcondition: 'unknown',
    errorType: 'action_failed',
  }],
];

const WORDS: ActErrorType[] = [
  'unknown_state',
  'stale_state',
  'target_changed',
  'frame_detached',
  'document_changed',
  'ref_not_found',
  'node_detached',
  'modal_blocked',
  'not_visible',
  'click_intercepted',
  'focus_mismatch',
  'timeout',
  'navigation_failed',
  'forbidden',
  'invalid_params',
  'action_failed',
  'operation_cancelled',
  'target_not_found',
  'browser_unavailable',
  'request_id_conflict',
];

function* everyEnding(): Generator<ActEnding> {
  const failures = [undefined, ...WORDS.flatMap((type) => [failed(type, true), failed(type, false)])];
  for (const began of [false, true]) {
    for (const acknowledged of [false, true]) {
      for (const interruption of [undefined, 'dialog', 'popup', 'navigation'] as const) {
        for (const failure of failures) {
          for (const requested of [false, true]) {
            for (const verdict of [undefined, 'met', 'unmet'] as const) {
              for (const captured of [false, true]) {
                for (const captureLost of [undefined, 'target_not_found'] as const) {
                  yield {
                    began,
                    acknowledged,
                    requested,
                    captured,
                    ...(interruption ? { interruption } : {}),
                    ...(failure ? { failure } : {}),
                    ...(verdict ? { verdict } : {}),
                    ...(captureLost ? { captureLost } : {}),
                  };
                }
              }
            }
          }
        }
      }
    }
  }
}

const s = suite('act outcome mapping');

s('each ending maps to the words §7 gives it', () => {
  const wrong = ROWS.filter(([, ending, expected]) => JSON.stringify(summarize(ending)) !== JSON.stringify(expected)).map(
    ([scenario, ending]) => `${scenario}: ${JSON.stringify(summarize(ending))}`,
  );
  assert.equal(wrong, []);
});

s('over every ending: the rules of §7 hold', () => {
  let count = 0;
  for (const ending of everyEnding()) {
    count++;
    const r = summarize(ending);
    const where = JSON.stringify(ending);
    // A verdict is only reported as evaluated, and a status names it only then.
    assert.is(r.status === 'condition_not_met', r.postcondition === 'unmet', `condition_not_met exactly when unmet: ${where}`);
    assert.is(r.status === 'verified', r.postcondition === 'met', `verified exactly when met: ${where}`);
    if (r.status === 'completed') assert.ok(r.postcondition === 'not_requested', `completed: nothing asked ${where}`);
    assert.is(r.postcondition === 'not_requested', !ending.requested, `not_requested exactly without expect/wait_for ${where}`);
    // execution.
    assert.is(r.execution === 'not_dispatched', !ending.began, `not_dispatched exactly when nothing began ${where}`);
    if (r.status === 'stale_observation') assert.is(r.execution, 'not_dispatched', `stale_observation: nothing ran ${where}`);
    // observation.
    assert.is(r.observation === 'captured', ending.captured, `observation ${where}`);
    // Every status that falls short says why; the others add a word only for a lost observation.
    const fellShort = ['stale_observation', 'stale_reference', 'action_failed', 'request_id_conflict', 'outcome_unknown'].includes(
      r.status,
    );
    if (fellShort) assert.ok(r.errorType !== undefined, `why it fell short ${where}`);
    else if (r.errorType !== undefined) {
      assert.is(r.observation, 'unavailable', `an error word on a success only explains the missing observation ${where}`);
    }
    assert.is.not(r.errorType, 'navigation_failed' as ActErrorType, 'not a wire word');
  }
  assert.ok(count > 10_000, `checked ${count} endings`);
});

s.run();
