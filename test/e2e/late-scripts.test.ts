// Apps that come alive after DOMContentLoaded (PROTOCOL.md §6 ready_state, §7 "the load event"): a
// TodoMVC whose AMD loader injects its modules once the document is parsed, each held back by the
// fixture server. Typing before the modules ran goes to a form nobody listens to, and its Enter
// submits the form natively (the page reloads): a navigation's fresh observation is taken after
// the load event, and an act on a document that has not reached it waits for it first.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { documentLoaded, evaluate, tabOf } from '../helpers/page.ts';
import { withSession } from '../helpers/session-suite.ts';
import { type ActResult, type Observation, ref } from '../helpers/wire.ts';

const s = suite('late scripts');
const context = withSession(s, 'late-scripts');

function act(params: Record<string, unknown>): Promise<ActResult> {
  return context.client.call('act', { session_id: context.sessionId, ...params });
}
function observe(targetId: string): Promise<Observation> {
  return context.client.call('observe', { session_id: context.sessionId, target_id: targetId });
}
async function blankTab(): Promise<{ targetId: string; state: Observation }> {
  const { target_id: targetId } = await context.client.call('tabs.new', { session_id: context.sessionId });
  return { targetId, state: await observe(targetId) };
}
const todos = (targetId: string) =>
  evaluate<string[]>(context.server, targetId, `[...document.querySelectorAll('.todo-list label')].map((l) => l.textContent)`);

/** Types each title with Enter, each act on the state the previous one returned. */
async function addTodos(state: Observation, titles: string[]): Promise<Observation> {
  for (const title of titles) {
    const typed = await act({
      state_id: state.state_id,
      action: 'type',
      ref: ref(state, 'What needs to be done?'),
      text: title,
      submit: true,
    });
    assert.is(typed.status, 'completed', `${title}: ${typed.error_text ?? ''}`);
    state = typed.fresh_state!;
  }
  return state;
}

s('navigate: the fresh observation comes after the load event, and typing at once reaches the app', async () => {
  const { targetId, state } = await blankTab();
  const moved = await act({
    state_id: state.state_id,
    action: 'navigate',
    url: context.fixtures.url('/late-app/index.html?delay=400'),
    wait_for: { selector: '#new-todo', state: 'visible' },
  });
  assert.is(moved.status, 'verified', moved.error_text);
  assert.is(moved.fresh_state!.document.ready_state, 'complete');
  assert.is(moved.error_text, undefined);
  const last = await addTodos(moved.fresh_state!, ['buy milk', 'walk dog']);
  assert.equal(await todos(targetId), ['buy milk', 'walk dog']);
  assert.match(last.tree, /2 items left/);
  await context.client.call('tabs.close', { session_id: context.sessionId, target_id: targetId });
});

s('tabs.new with a url answers once the page loaded; the observation says so', async () => {
  const { target_id: targetId } = await context.client.call('tabs.new', {
    session_id: context.sessionId,
    url: context.fixtures.url('/late-app/index.html?delay=300'),
  });
  assert.is(await evaluate(context.server, targetId, `document.documentElement.dataset.ready ?? 'no'`), 'true');
  const seen = await observe(targetId);
  assert.is(seen.document.ready_state, 'complete');
  await addTodos(seen, ['one', 'two']);
  assert.equal(await todos(targetId), ['one', 'two']);
  await context.client.call('tabs.close', { session_id: context.sessionId, target_id: targetId });
});

s('an act on a document observed before its load event waits for it before its input', async () => {
  const { targetId } = await blankTab();
  // Navigated behind the server's back, observed as soon as it is parsed: still interactive.
  const url = context.fixtures.url('/late-app/index.html?delay=700');
  await tabOf(context.server, targetId).session.send('Page.navigate', { url });
  await documentLoaded(context.server, targetId, '/late-app/index.html');
  const early = await observe(targetId);
  assert.is(early.document.ready_state, 'interactive');
  assert.is(await evaluate(context.server, targetId, `document.documentElement.dataset.ready ?? 'no'`), 'no');
  const last = await addTodos(early, ['buy milk', 'walk dog']);
  assert.equal(await todos(targetId), ['buy milk', 'walk dog']);
  assert.is(last.document.ready_state, 'complete');
  await context.client.call('tabs.close', { session_id: context.sessionId, target_id: targetId });
});

s('a load event that never comes: the act completes 5 s past DOMContentLoaded and says so', async () => {
  const { targetId, state } = await blankTab();
  // Its iframe's request never answers, so the window's load event never fires.
  const moved = await act({ state_id: state.state_id, action: 'navigate', url: context.fixtures.url('/never-loads-frame.html') });
  assert.is(moved.status, 'completed');
  assert.is(moved.execution, 'completed');
  assert.is(moved.observation, 'captured');
  assert.is(moved.fresh_state!.document.ready_state, 'interactive');
  assert.match(moved.error_text ?? '', /load event/);
  // The bound is spent: the next act does not wait again, and says nothing of it.
  const clicked = await act({ state_id: moved.fresh_state!.state_id, action: 'click', ref: ref(moved.fresh_state!, 'Working button') });
  assert.is(clicked.status, 'completed');
  assert.is(clicked.error_text, undefined);
  await context.client.call('tabs.close', { session_id: context.sessionId, target_id: targetId });
});

s.run();
