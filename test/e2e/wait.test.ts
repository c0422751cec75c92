// wait (PROTOCOL.md §7 "wait"): a condition waited for without acting, answered with an
// observation whether it was met or not; and act's wait_for met by text the act showed only for a
// moment (armed before the first input).
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { openAlone, withSession } from '../helpers/session-suite.ts';
import { type ActResult, type Observation, ref, type WaitResult } from '../helpers/wire.ts';

const s = suite('wait');
const ctx = withSession(s, 'wait');

s('a wait for text the page shows 1.5 s later answers met, with an observation that shows it', async () => {
  const targetId = await openAlone(ctx, '/autosave.html');
  const before = await ctx.client.call<Observation>('observe', { session_id: ctx.sessionId, target_id: targetId });
  assert.not.match(before.tree, /Draft restored/);
  const r = await ctx.client.call<WaitResult>('wait', {
    session_id: ctx.sessionId,
    target_id: targetId,
    text: 'Draft restored',
    timeout_ms: 10_000,
  });
  assert.is(r.status, 'met');
  assert.match(r.observation.tree, /Draft restored/);
  assert.is.not(r.observation.state_id, before.state_id);
  assert.is(r.observation.target_id, targetId);
});

s('a wait that runs out is condition_not_met, with an observation of the page as it is', async () => {
  const targetId = await openAlone(ctx, '/autosave.html?restore_ms=60000');
  const started = performance.now();
  const r = await ctx.client.call<WaitResult>('wait', {
    session_id: ctx.sessionId,
    target_id: targetId,
    text: 'Draft restored',
    timeout_ms: 800,
  });
  assert.is(r.status, 'condition_not_met');
  assert.ok(performance.now() - started >= 700, 'it waited out its budget');
  assert.match(r.observation.tree, /Save draft/);
  assert.not.match(r.observation.tree, /Draft restored/);
});

s('the states and kinds of wait_for: a selector detached, a URL, a placeholder is not page text', async () => {
  const targetId = await openAlone(ctx, '/autosave.html?restore_ms=60000');
  const call = (condition: Record<string, unknown>) =>
    ctx.client.call<WaitResult>('wait', { session_id: ctx.sessionId, target_id: targetId, timeout_ms: 500, ...condition });
  assert.is((await call({ selector: '#missing', state: 'detached' })).status, 'met');
  assert.is((await call({ url: '**/autosave.html*' })).status, 'met');
  assert.is((await call({ text: 'Write your update' })).status, 'condition_not_met');
  assert.is((await call({ selector: '[placeholder="Write your update"]' })).status, 'met');
});

s('params: exactly one of text, url and selector; a selector the page refuses is invalid_params', async () => {
  const targetId = await openAlone(ctx, '/autosave.html');
  for (const params of [{}, { text: 'a', selector: 'b' }, { selector: '[[[' }]) {
    const error = await ctx.client.callError('wait', { session_id: ctx.sessionId, target_id: targetId, timeout_ms: 500, ...params });
    assert.is(error.data?.error_type, 'invalid_params', JSON.stringify(params));
  }
});

s('act wait_for is met by text the click shows for a few milliseconds only, gone before the act settles', async () => {
  const targetId = await openAlone(ctx, '/autosave.html?restore_ms=60000');
  const o = await ctx.client.call<Observation>('observe', { session_id: ctx.sessionId, target_id: targetId });
  const r = await ctx.client.call<ActResult>('act', {
    session_id: ctx.sessionId,
    state_id: o.state_id,
    action: 'click',
    ref: ref(o, 'Save draft'),
    wait_for: { text: 'Saved' },
    timeout_ms: 2_000,
  });
  assert.is(r.status, 'verified', `${r.status} ${r.error_text ?? ''}`);
  // It is gone by now: the verdict is the watch's, armed before the click.
  assert.not.match(r.fresh_state!.tree, /Saved/);
  // The watch counts only what the input brought: text absent before and after is not met.
  const o2 = r.fresh_state!;
  const none = await ctx.client.call<ActResult>('act', {
    session_id: ctx.sessionId,
    state_id: o2.state_id,
    action: 'scroll',
    delta_y: 0,
    wait_for: { text: 'Saved' },
    timeout_ms: 500,
  });
  assert.is(none.status, 'condition_not_met');
});

s.run();
