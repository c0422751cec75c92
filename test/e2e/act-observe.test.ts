// act's `observe` shapes its fresh observation as observe's params shape an observation
// (PROTOCOL.md §7): refs at most, the page text, a subtree of the acted state.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { openAlone, withSession } from '../helpers/session-suite.ts';
import { type ActResult, freshState, type Observation, ref } from '../helpers/wire.ts';

const s = suite('act observe shaping');
const ctx = withSession(s, 'act-observe');

async function cart(): Promise<Observation> {
  const targetId = await openAlone(ctx, '/cart.html');
  return ctx.client.call<Observation>('observe', { session_id: ctx.sessionId, target_id: targetId });
}

function act(params: Record<string, unknown>): Promise<ActResult> {
  return ctx.client.call<ActResult>('act', { session_id: ctx.sessionId, ...params });
}

s('max_elements and include_text shape the fresh observation', async () => {
  const o = await cart();
  assert.ok(o.elements.length > 5, 'the cart has more than 5 refs');
  const r = await act({
    state_id: o.state_id,
    action: 'click',
    ref: ref(o, 'Add to cart'),
    observe: { max_elements: 5, include_text: true },
  });
  assert.is(r.status, 'completed', r.error_text);
  const fresh = freshState(r);
  assert.is(fresh.elements.length, 5);
  assert.is(fresh.truncated, true);
  assert.ok(fresh.text?.includes('Added 1'), fresh.text);
});

s('a refusal is shaped the same way', async () => {
  const o = await cart();
  const r = await act({ state_id: 'st_00000000_1', action: 'click', ref: ref(o, 'Add to cart') });
  assert.is(r.fresh_state, undefined);
  await act({ state_id: o.state_id, action: 'click', ref: ref(o, 'Add to cart') });
  const stale = await act({ state_id: o.state_id, action: 'click', ref: ref(o, 'Add to cart'), observe: { max_elements: 3 } });
  assert.is(stale.error_type, 'stale_state');
  assert.is(freshState(stale).elements.length, 3);
});

s('root_ref names an element of the acted state; without its node, the whole frame', async () => {
  const o = await cart();
  const form = o.elements.find((e) => e.role === 'textbox');
  assert.ok(form, o.tree);
  const r = await act({ state_id: o.state_id, action: 'click', ref: ref(o, 'Add to cart'), observe: { root_ref: form!.ref } });
  const fresh = freshState(r);
  assert.ok(fresh.elements.length >= 1 && fresh.elements.length < o.elements.length, fresh.tree);
  const whole = await act({ state_id: fresh.state_id, action: 'click', ref: ref(fresh, form!.name), observe: { root_ref: '@9999' } });
  assert.ok(freshState(whole).elements.length >= o.elements.length - 1, freshState(whole).tree);
});

s.run();
