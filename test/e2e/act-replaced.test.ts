// A node replaced in the middle of a batch (PROTOCOL.md §7, step 5 before step 7: identity before
// geometry). TodoMVC re-renders its footer after a toggle (fixtures/pages/todomvc.html?render=…),
// so the "Active" link the batch's second action aims at is a new node: whenever the replacement
// happens before that action's input, the answer is stale_reference / node_detached with only the
// toggle completed, never a verdict on the new link's geometry (click_intercepted by "Active",
// not_visible for want of a layout box).
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import type { TestClient } from '../helpers/client.ts';
import { evaluate, tabOf } from '../helpers/page.ts';
import type { TestServer } from '../helpers/pagewire.ts';
import { openAloneObserved, withSession } from '../helpers/session-suite.ts';
import { itemsLeft, todoToggle } from '../helpers/todomvc.ts';
import { type ActResult, type Observation, ref } from '../helpers/wire.ts';

const s = suite('act: a node replaced mid-batch');
let server: TestServer;
let client: TestClient;
let sessionId: string;

const context = withSession(s, 'act-replaced', (ready) => ({ server, client, sessionId } = ready));

/** Each timing is tried this many times in a row: an answer that depends on timing shows. */
const RUNS = 4;

/** Opens `path` alone in the session and observes it. */
const open = (path: string) => openAloneObserved(context, path);

/** Tick "Buy a unicorn", then `then` (by default a click on the footer's "Active" link), waiting for the count. */
function toggleThen(
  o: Observation,
  then: Record<string, unknown> = { action: 'click', ref: ref(o, 'Active', 'link') },
): Promise<ActResult> {
  return client.call('act', {
    session_id: sessionId,
    state_id: o.state_id,
    actions: [{ action: 'click', ref: todoToggle(o, 'Buy a unicorn') }, then],
    wait_for: { text: '1 item left' },
  });
}

/** The contract's answer: the toggle ran, the link's node went stale, and nothing clicked the new link. */
async function assertStale(r: ActResult, o: Observation, label: string): Promise<void> {
  const said = `${label}: ${r.status} ${r.error_type} ${r.error_text} ${JSON.stringify(r.hit)}`;
  assert.is(r.status, 'stale_reference', said);
  assert.is(r.error_type, 'node_detached', said);
  assert.equal(r.completed, [0], said);
  assert.is(r.execution, 'dispatched_unknown', said);
  assert.is(r.postcondition, 'unknown', said);
  assert.is(r.hit, undefined, said);
  assert.is(itemsLeft(r.fresh_state), '1 item left', said);
  assert.is(await evaluate(server, o.target_id, 'location.hash'), '', `${label}: the new "Active" link was not clicked`);
}

for (const render of ['sync', 'microtask', 'frame'] as const) {
  s(
    `the footer re-rendered (${render}) after the toggle's click: stale_reference, node_detached, completed [0], ${RUNS} times`,
    async () => {
      for (let run = 0; run < RUNS; run++) {
        const o = await open(`/todomvc.html?render=${render}`);
        await assertStale(await toggleThen(o), o, `run ${run}`);
      }
    },
  );
}

/**
 * The CDP commands the second action sends before its press, in order. The page replaces the
 * footer just before one of them is sent: every moment between the node check and the last hit
 * test, each made certain rather than left to a timer.
 */
interface Moment {
  name: string;
  at: (method: string, params: unknown) => boolean;
  nth?: number;
}
const MOMENTS: Moment[] = [
  { name: 'the node check', at: (method, params) => method === 'Runtime.callFunctionOn' && declares(params, 'isSameConnectedNode') },
  { name: 'scrolling into view', at: (method) => method === 'DOM.scrollIntoViewIfNeeded' },
  { name: 'reading the quads', at: (method) => method === 'DOM.getContentQuads' },
  { name: 'the hit test', at: (method) => method === 'DOM.getNodeForLocation' },
  { name: 'the mouse move', at: (method, params) => method === 'Input.dispatchMouseEvent' && mouse(params) === 'mouseMoved' },
  { name: 'the hit test after the move', at: (method) => method === 'DOM.getNodeForLocation', nth: 2 },
];

const declares = (params: unknown, name: string) => String((params as { functionDeclaration?: string }).functionDeclaration).includes(name);
const mouse = (params: unknown) => (params as { type?: string }).type;

/**
 * `work`, during which the page runs `replace` just before the first command of the batch's second
 * action that `moment` picks (armed once the first action's click is released); whether it ran.
 */
async function replacingBefore(o: Observation, moment: Moment, replace: string, work: () => Promise<ActResult>): Promise<ActResult> {
  const session = tabOf(server, o.target_id).session;
  const original = session.sendRaw;
  let armed = false;
  let seen = 0;
  let replaced = false;
  session.sendRaw = function (method, params, options) {
    if (method === 'Input.dispatchMouseEvent' && mouse(params) === 'mouseReleased') armed = true;
    else if (armed && !replaced && moment.at(method, params) && ++seen === (moment.nth ?? 1)) {
      replaced = true;
      return evaluate(server, o.target_id, replace).then(() => original.call(this, method, params, options));
    }
    return original.call(this, method, params, options);
  };
  try {
    return await work();
  } finally {
    session.sendRaw = original;
    assert.ok(replaced, `${moment.name} was reached`);
  }
}

for (const moment of MOMENTS) {
  s(`the footer re-rendered just before ${moment.name} of the second action: node_detached, ${RUNS} times`, async () => {
    for (let run = 0; run < RUNS; run++) {
      const o = await open('/todomvc.html');
      await assertStale(await replacingBefore(o, moment, 'renderFooter()', () => toggleThen(o)), o, `run ${run}`);
    }
  });
}

s(`the new-todo field replaced just before the call that focuses it for a fill: node_detached, nothing typed, ${RUNS} times`, async () => {
  const focusing: Moment = {
    name: 'the focusing call',
    at: (method, params) => method === 'Runtime.callFunctionOn' && declares(params, 'focusPrepared'),
  };
  for (let run = 0; run < RUNS; run++) {
    const o = await open('/todomvc.html');
    const fill = { action: 'fill', ref: ref(o, 'What needs to be done?'), text: 'Walk the dog' };
    const r = await replacingBefore(
      o,
      focusing,
      `const field = document.querySelector('.new-todo'); field.replaceWith(field.cloneNode())`,
      () => toggleThen(o, fill),
    );
    await assertStale(r, o, `run ${run}`);
    const field = `document.querySelector('.new-todo')`;
    assert.equal(await evaluate(server, o.target_id, `[${field}.value, document.activeElement === ${field}]`), ['', false]);
  }
});

/**
 * The footer re-rendered by a timer whose delay sweeps the second action's checks (0 to 19 ms
 * after the toggle's click). A replacement that comes in the last round trip, after the final
 * hit test and before the press, lets the press reach the new link (nothing in CDP makes the check
 * and the input one step): that run is verified. Any other timing is node_detached; a geometry
 * verdict on the replaced node never comes.
 */
s(
  'the footer re-rendered by a timer of 0 to 19 ms: node_detached (or, past the last hit test, the new link clicked), never a geometry verdict',
  async () => {
    for (let delay = 0; delay < 20; delay++) {
      const o = await open(`/todomvc.html?render=timer&delay=${delay}`);
      const r = await toggleThen(o);
      if (r.status === 'verified') {
        assert.is(await evaluate(server, o.target_id, 'location.hash'), '#/active', `delay ${delay}: verified means the link was clicked`);
        continue;
      }
      await assertStale(r, o, `delay ${delay}`);
    }
  },
);

s.run();
