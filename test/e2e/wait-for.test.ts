// wait_for's four states, for text and for a selector (PROTOCOL.md §7), against text and an
// element that are absent, present but hidden, and shown: text in the document but hidden is
// `attached` and not `visible`, and only text the document does not hold is `detached`.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { openAlone, withSession } from '../helpers/session-suite.ts';
import { type ActResult, type Observation, ref } from '../helpers/wire.ts';

const s = suite('wait_for states');
const ctx = withSession(s, 'wait-for');

type State = 'visible' | 'hidden' | 'attached' | 'detached';
const STATES: readonly State[] = ['visible', 'hidden', 'attached', 'detached'];

/** For each kind, what the order page holds: absent, present but hidden (the toast), shown. */
const SUBJECTS = {
  text: { absent: 'Refund issued', hidden: 'Order shipped', shown: 'Payment received' },
  selector: { absent: '#refund-line', hidden: '#shipped-toast', shown: '#payment-line' },
} as const;

/** Which states hold for something absent, hidden, or shown. */
const HOLDS: Record<'absent' | 'hidden' | 'shown', Record<State, boolean>> = {
  absent: { visible: false, hidden: true, attached: false, detached: true },
  hidden: { visible: false, hidden: true, attached: true, detached: false },
  shown: { visible: true, hidden: false, attached: true, detached: false },
};

let o: Observation;

async function actWaiting(action: Record<string, unknown>, waitFor: Record<string, unknown>, timeoutMs = 700): Promise<ActResult> {
  const r = await ctx.client.call<ActResult>('act', {
    session_id: ctx.sessionId,
    state_id: o.state_id,
    ...action,
    wait_for: waitFor,
    timeout_ms: timeoutMs,
  });
  assert.ok(r.fresh_state, `${JSON.stringify(waitFor)}: ${r.status} ${r.error_text ?? ''}`);
  o = r.fresh_state!;
  return r;
}

s('each state against text and a selector that are absent, hidden in the document, and shown', async () => {
  const targetId = await openAlone(ctx, '/order-status.html');
  o = await ctx.client.call<Observation>('observe', { session_id: ctx.sessionId, target_id: targetId });
  const wrong: string[] = [];
  for (const [kind, subjects] of Object.entries(SUBJECTS)) {
    for (const [presence, subject] of Object.entries(subjects) as Array<[keyof typeof HOLDS, string]>) {
      for (const state of STATES) {
        const r = await actWaiting({ action: 'scroll', delta_y: 0 }, { [kind]: subject, state });
        const expected = HOLDS[presence][state] ? 'verified' : 'condition_not_met';
        if (r.status !== expected) {
          wrong.push(`${kind} ${JSON.stringify(subject)} (${presence}) ${state}: ${r.status}, expected ${expected}`);
        }
      }
    }
  }
  assert.equal(wrong, []);
});

s('each state waited for until the page gets there: shown late, then removed late', async () => {
  const targetId = await openAlone(ctx, '/order-status.html');
  o = await ctx.client.call<Observation>('observe', { session_id: ctx.sessionId, target_id: targetId });
  // Before: the toast is in the document, hidden.
  assert.is((await actWaiting({ action: 'scroll', delta_y: 0 }, { text: 'Order shipped', state: 'attached' })).status, 'verified');
  const shown = await actWaiting({ action: 'click', ref: ref(o, 'Ship order') }, { text: 'Order shipped', state: 'visible' }, 10_000);
  assert.is(shown.status, 'verified');
  const stillThere = await actWaiting({ action: 'scroll', delta_y: 0 }, { text: 'Order shipped', state: 'detached' });
  assert.is(stillThere.status, 'condition_not_met');
  const removed = await actWaiting(
    { action: 'click', ref: ref(o, 'Archive notice') },
    { selector: '#shipped-toast', state: 'detached' },
    10_000,
  );
  assert.is(removed.status, 'verified');
  const gone = await actWaiting({ action: 'scroll', delta_y: 0 }, { text: 'Order shipped', state: 'detached' });
  assert.is(gone.status, 'verified');
});

s.run();
