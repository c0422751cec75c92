// Opening a page is one call (PROTOCOL.md §7 "A navigate without state_id", §5 tabs.new observe):
// act navigate with no observation before it answers with the page's fresh observation, and
// tabs.new with observe answers with the new tab's observation.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { openAlone, withSession } from '../helpers/session-suite.ts';
import type { ActResult, Observation } from '../helpers/wire.ts';

const s = suite('open a page in one call');
const ctx = withSession(s, 'open-page');

s('act navigate without state_id, in a session never observed: completed, with the new page observed', async () => {
  const { session_id: sessionId } = await ctx.client.call('session.create', { name: 'never-observed' });
  try {
    await ctx.client.call('tabs.new', { session_id: sessionId });
    const r = await ctx.client.call<ActResult>('act', {
      session_id: sessionId,
      action: 'navigate',
      url: ctx.fixtures.url('/autosave.html?restore_ms=60000'),
    });
    assert.is(r.status, 'completed', `${r.status} ${r.error_text ?? ''}`);
    assert.match(r.fresh_state!.tree, /button "Save draft"/);
    // The fresh state is the tab's current one: acting on it works.
    const again = await ctx.client.call<ActResult>('act', {
      session_id: sessionId,
      state_id: r.fresh_state!.state_id,
      action: 'scroll',
      delta_y: 0,
    });
    assert.is(again.status, 'completed');
  } finally {
    await ctx.client.call('session.close', { session_id: sessionId });
  }
});

s('a navigate without state_id supersedes the state observed before; any other act without one is invalid_params', async () => {
  const targetId = await openAlone(ctx, '/autosave.html?restore_ms=60000');
  const before = await ctx.client.call<Observation>('observe', { session_id: ctx.sessionId, target_id: targetId });
  const r = await ctx.client.call<ActResult>('act', {
    session_id: ctx.sessionId,
    target_id: targetId,
    action: 'navigate',
    url: ctx.fixtures.url('/order-status.html'),
  });
  assert.is(r.status, 'completed');
  assert.match(r.fresh_state!.tree, /Ship order/);
  const stale = await ctx.client.call<ActResult>('act', {
    session_id: ctx.sessionId,
    state_id: before.state_id,
    action: 'scroll',
    delta_y: 0,
  });
  assert.is(stale.error_type, 'stale_state');
  const error = await ctx.client.callError('act', { session_id: ctx.sessionId, action: 'scroll', delta_y: 0 });
  assert.is(error.data?.error_type, 'invalid_params');
  assert.match(JSON.stringify(error.data), /state_id/);
});

s('back, forward and reload alone need no state_id either; two of them in one batch do', async () => {
  const targetId = await openAlone(ctx, '/autosave.html?restore_ms=60000');
  const went = await ctx.client.call<ActResult>('act', {
    session_id: ctx.sessionId,
    target_id: targetId,
    action: 'navigate',
    url: ctx.fixtures.url('/order-status.html'),
  });
  assert.is(went.status, 'completed');
  const back = await ctx.client.call<ActResult>('act', { session_id: ctx.sessionId, target_id: targetId, action: 'back' });
  assert.is(back.status, 'completed', `${back.status} ${back.error_text ?? ''}`);
  assert.match(back.fresh_state!.tree, /button "Save draft"/);
  const forward = await ctx.client.call<ActResult>('act', {
    session_id: ctx.sessionId,
    target_id: targetId,
    actions: [{ action: 'forward' }],
  });
  assert.is(forward.status, 'completed', `${forward.status} ${forward.error_text ?? ''}`);
  assert.match(forward.fresh_state!.tree, /Ship order/);
  const reload = await ctx.client.call<ActResult>('act', { session_id: ctx.sessionId, target_id: targetId, action: 'reload' });
  assert.is(reload.status, 'completed', `${reload.status} ${reload.error_text ?? ''}`);
  assert.match(reload.fresh_state!.tree, /Ship order/);
  const error = await ctx.client.callError('act', {
    session_id: ctx.sessionId,
    target_id: targetId,
    actions: [{ action: 'back' }, { action: 'reload' }],
  });
  assert.is(error.data?.error_type, 'invalid_params');
  assert.match(JSON.stringify(error.data), /state_id/);
});

s('tabs.new with observe answers with the new page observed, its first current state', async () => {
  const opened = await ctx.client.call('tabs.new', {
    session_id: ctx.sessionId,
    url: ctx.fixtures.url('/autosave.html?restore_ms=60000'),
    observe: true,
  });
  const observation = opened.observation!;
  assert.ok(observation, 'an observation came with the new tab');
  assert.is(observation.target_id, opened.target_id);
  assert.match(observation.tree, /button "Save draft"/);
  const acted = await ctx.client.call<ActResult>('act', {
    session_id: ctx.sessionId,
    state_id: observation.state_id,
    action: 'scroll',
    delta_y: 0,
  });
  assert.is(acted.status, 'completed');
  const plain = await ctx.client.call('tabs.new', { session_id: ctx.sessionId, url: ctx.fixtures.url('/autosave.html') });
  assert.is(plain.observation, undefined);
});

s.run();
