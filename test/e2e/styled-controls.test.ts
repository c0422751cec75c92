// Checkboxes and radios drawn with CSS (PROTOCOL.md §7 step 7): a hit on a pseudo-element is a hit
// on its originating element, and a hit on the label of the target is a hit on the target (the
// browser forwards the click); anything else on top is click_intercepted, named as a real element.
// A control whose own point is unusable (clipped under another button, 0×0) is clicked on a label.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import type { TestClient } from '../helpers/client.ts';
import { evaluate } from '../helpers/page.ts';
import type { TestServer } from '../helpers/pagewire.ts';
import { openAloneObserved, withSession } from '../helpers/session-suite.ts';
import { itemsLeft, todoToggle } from '../helpers/todomvc.ts';
import { type ActResult, type Observation, ref } from '../helpers/wire.ts';

const s = suite('styled controls');
let server: TestServer;
let client: TestClient;
let sessionId: string;

const ctx = withSession(s, 'styled-controls', (context) => ({ server, client, sessionId } = context));

/** Opens `path` in a new tab (closing the previous one) and observes it. */
const open = (path: string) => openAloneObserved(ctx, path);
function act(params: Record<string, unknown>): Promise<ActResult> {
  return client.call<ActResult>('act', { session_id: sessionId, ...params });
}
/** The ref of the `role` named `name` (the shared helper, with the role first as this file reads). */
const roleRef = (o: Observation, role: string, name: string): string => ref(o, name, role);
/** "Mark all as complete": the one checkbox outside the list. */
const toggleAll = (o: Observation) => /^checkbox (?:\[checked\] )?(@\d+)$/m.exec(o.tree)![1]!;
/** What the settings page (ui-kit) or the checkout says changed, as its status line reads. */
const statusOf = (o: Observation | undefined) => /"(changed[^"]*|nothing changed|nothing chosen)"/.exec(o?.tree ?? '')?.[1];

s('TodoMVC: check and click reach appearance:none toggles through their own ::after and ::before marks, once each', async () => {
  let o = await open('/todomvc.html');
  assert.is(itemsLeft(o), '2 items left');
  await evaluate(
    server,
    o.target_id,
    `window.clicks = []; document.addEventListener('click', (e) => clicks.push(e.target.className), true)`,
  );
  let r = await act({ state_id: o.state_id, action: 'check', ref: todoToggle(o, 'Buy a unicorn'), checked: true });
  assert.is(r.status, 'completed', r.error_text);
  assert.is(r.hit, undefined);
  assert.is(itemsLeft(r.fresh_state), '1 item left');
  o = r.fresh_state!;
  // "Mark all as complete": its ❯ is the input's own ::before.
  r = await act({ state_id: o.state_id, action: 'click', ref: toggleAll(o) });
  assert.is(r.status, 'completed', r.error_text);
  assert.is(itemsLeft(r.fresh_state), '0 items left');
  assert.equal(await evaluate(server, o.target_id, 'clicks'), ['toggle', 'toggle-all'], 'one click on each control, nothing else');
  assert.equal(await evaluate(server, o.target_id, 'todos.map((t) => t.completed)'), [true, true, true]);
});

s('TodoMVC: hover on a toggle hovers its item (the ::after on top is the toggle)', async () => {
  const o = await open('/todomvc.html');
  const r = await act({ state_id: o.state_id, action: 'hover', ref: todoToggle(o, 'Water the plants') });
  assert.is(r.status, 'completed', r.error_text);
  assert.is(await evaluate(server, o.target_id, `document.querySelector('.todo-list li:hover')?.dataset.id`), '3');
});

s('UI kit: inputs hidden under their label: checkbox, radio, switch (knob then track), chip, closed-shadow switch', async () => {
  let o = await open('/ui-kit.html');
  const steps: Array<{ role: string; name: string; checked?: boolean; click?: true }> = [
    { role: 'checkbox', name: 'Remember me on this device', checked: true },
    { role: 'radio', name: 'Express', checked: true },
    { role: 'radio', name: 'Pick up in store', click: true },
    // Bootstrap 5 .btn-check: clipped at the group's start, under "Monthly": clicked on its label.
    { role: 'radio', name: 'Yearly', checked: true },
    { role: 'switch', name: 'Email notifications', checked: true },
    // Checked, the knob has moved away: the point now hits the track (the label's ::before).
    { role: 'switch', name: 'Email notifications', checked: false },
    { role: 'checkbox', name: 'Email me a receipt', checked: true },
    { role: 'switch', name: 'Dark mode', checked: true },
  ];
  for (const step of steps) {
    const target = roleRef(o, step.role, step.name);
    const r = await act(
      step.click
        ? { state_id: o.state_id, action: 'click', ref: target }
        : { state_id: o.state_id, action: 'check', ref: target, checked: step.checked },
    );
    assert.is(r.status, 'completed', `${step.name}: ${r.error_type} ${r.error_text} ${JSON.stringify(r.hit)}`);
    o = r.fresh_state!;
  }
  // Every control changed exactly once per act: a label click forwarded to its control once.
  assert.equal(await evaluate(server, o.target_id, 'changes'), [
    'remember on',
    'shipping=express',
    'shipping=pickup',
    'billing=yearly',
    'notifications on',
    'notifications off',
    'receipt on',
    'dark mode on',
  ]);
  assert.equal(
    await evaluate(
      server,
      o.target_id,
      `[...document.querySelectorAll('#settings input[type=checkbox], #settings input[type=radio]')].map((i) => i.checked)`,
    ),
    [true, false, false, true, false, true, false, true],
  );
});

s('check on an already-set styled control sends nothing; the label rule does not skip the final check', async () => {
  let o = await open('/ui-kit.html');
  let r = await act({ state_id: o.state_id, action: 'check', ref: roleRef(o, 'radio', 'Standard'), checked: true });
  assert.is(r.status, 'completed', r.error_text);
  assert.is(statusOf(r.fresh_state), 'nothing changed');
  o = r.fresh_state!;
  // A radio cannot be unchecked by clicking it (here: by clicking its label): the click lands, the
  // state is read back and the act fails.
  r = await act({ state_id: o.state_id, action: 'check', ref: roleRef(o, 'radio', 'Standard'), checked: false });
  assert.is(r.status, 'action_failed');
  assert.is(r.error_type, 'action_failed');
  assert.match(r.error_text!, /still checked after the click/);
  assert.equal(await evaluate(server, o.target_id, 'changes'), []);
  assert.is(await evaluate(server, o.target_id, `document.getElementById('ship-standard').checked`), true);
});

s('a cookie banner over checkboxes and their labels: click_intercepted naming the banner, nothing toggled', async () => {
  // A plain checkbox, a visually hidden one, and a 0×0 switch, which has no point of its own: what
  // covers its label is what the agent must deal with.
  const o = await open('/checkout.html');
  for (const name of ['Send me the newsletter', 'Text me about my order', 'Show me offers']) {
    for (const action of ['check', 'click', 'hover']) {
      const r = await act({
        state_id: (await client.call<Observation>('observe', { session_id: sessionId })).state_id,
        action,
        ref: roleRef(o, 'checkbox', name),
        checked: action === 'check' ? true : undefined,
      });
      assert.is(r.status, 'action_failed', `${name} ${action}`);
      assert.is(r.error_type, 'click_intercepted', `${name} ${action}: ${r.error_text}`);
      assert.is(r.execution, 'dispatched_unknown');
      // The banner's box, or the text in it.
      assert.equal({ role: r.hit?.role, name: r.hit?.name }, { role: 'dialog', name: 'Cookie consent' }, `${name} ${action}`);
      assert.ok(['div', 'span'].includes(r.hit!.tag), r.hit!.tag);
      assert.match(
        r.error_text!,
        name === 'Show me offers' ? /^another element is on top of the target's label at / : /^another element is on top of the target at /,
      );
      assert.is(statusOf(r.fresh_state), 'nothing chosen');
    }
  }
});

/** `check` on a control is refused as covered by `hit`, and no control of the page changed. */
async function assertCheckRefused(path: string, role: string, name: string, hit: ActResult['hit']): Promise<ActResult> {
  const o = await open(path);
  const r = await act({ state_id: o.state_id, action: 'check', ref: roleRef(o, role, name), checked: true });
  assert.is(r.status, 'action_failed', r.error_text);
  assert.is(r.error_type, 'click_intercepted');
  assert.is(r.execution, 'dispatched_unknown');
  // The hit element is its own blocker here (docs/tree-format.md, "Blockers"): named by a ref of fresh_state.
  assert.equal({ role: r.hit?.role, name: r.hit?.name, tag: r.hit?.tag }, hit);
  assert.type(r.hit?.ref, 'string');
  assert.is(
    await evaluate(server, o.target_id, `document.querySelector('#status, #summary').textContent`),
    path === '/ui-kit.html' ? 'nothing changed' : 'nothing chosen',
  );
  return r;
}

s("another element's ::before over a checkbox: click_intercepted naming that element, never the pseudo-element", async () => {
  const r = await assertCheckRefused('/checkout.html', 'checkbox', 'Gift wrap', { role: 'group', name: 'Spring sale', tag: 'div' });
  assert.match(r.error_text!, /: div "Spring sale"$/);
});

s('a link inside the label over its hidden radio: click_intercepted (a label does not forward clicks on its links)', async () => {
  const r = await assertCheckRefused('/checkout.html', 'radio', 'Care+ See details $9 a year', {
    role: 'link',
    name: 'See details',
    tag: 'a',
  });
  assert.is(await evaluate(server, r.fresh_state!.target_id, 'location.hash'), '', 'the link was not followed either');
});

s('the floating label of the next field over a checkbox: click_intercepted naming that label (it labels another control)', async () => {
  await assertCheckRefused('/checkout.html', 'checkbox', 'Save this card', { role: 'LabelText', name: 'Coupon code', tag: 'label' });
});

s('a pseudo-element over a cross-site iframe: click_intercepted naming the element it belongs to', async () => {
  let o = await open('/payment.html');
  for (let i = 0; i < 100 && !o.elements.some((e) => e.name === 'Pay $20.00'); i++) {
    o = await client.call<Observation>('observe', { session_id: sessionId });
  }
  const r = await act({ state_id: o.state_id, action: 'click', ref: roleRef(o, 'button', 'Pay $20.00') });
  assert.is(r.status, 'action_failed', r.error_text);
  assert.is(r.error_type, 'click_intercepted');
  assert.equal({ role: r.hit?.role, name: r.hit?.name, tag: r.hit?.tag }, { role: 'note', name: 'Why we ask', tag: 'span' });
  assert.ok(r.fresh_state!.tree.includes('"not paid"'), r.fresh_state!.tree);
});

/** The plans page: its change events and the clicks that reached an input, in order. */
async function pricingState(targetId: string): Promise<{ changes: string[]; clicks: string[] }> {
  return { changes: await evaluate(server, targetId, 'changes'), clicks: await evaluate(server, targetId, 'inputClicks') };
}

s('Bootstrap 5 toggle buttons: "Yearly", "Extra storage" and "Choose Team" are clicked on their own labels, once each', async () => {
  // Every .btn-check input of a group sits clipped at the group's start, under the first button:
  // at their own point a click would go to "Monthly" (or "Priority support").
  let o = await open('/pricing.html');
  let r = await act({ state_id: o.state_id, action: 'click', ref: roleRef(o, 'radio', 'Yearly save 20%') });
  assert.is(r.status, 'completed', `${r.error_type} ${r.error_text}`);
  assert.ok(r.fresh_state!.tree.includes('"$278"'), 'the yearly prices are shown');
  o = r.fresh_state!;
  r = await act({ state_id: o.state_id, action: 'check', ref: roleRef(o, 'checkbox', 'Extra storage'), checked: true });
  assert.is(r.status, 'completed', `${r.error_type} ${r.error_text}`);
  o = r.fresh_state!;
  // Its first label is display:none at this width: the second one, "Choose Team", is clicked.
  r = await act({ state_id: o.state_id, action: 'check', ref: roleRef(o, 'radio', 'Choose Team'), checked: true });
  assert.is(r.status, 'completed', `${r.error_type} ${r.error_text}`);
  o = r.fresh_state!;
  // The first button's own point is its own label: nothing changes for it.
  r = await act({ state_id: o.state_id, action: 'check', ref: roleRef(o, 'radio', 'Monthly'), checked: true });
  assert.is(r.status, 'completed', `${r.error_type} ${r.error_text}`);
  assert.equal(await pricingState(o.target_id), {
    changes: ['period=yearly', 'addon-storage on', 'plan=team', 'period=monthly'],
    clicks: ['period-yearly', 'addon-storage', 'plan-team', 'period-monthly'],
  });
  assert.equal(
    await evaluate(server, o.target_id, `[...document.querySelectorAll('.btn-check')].map((i) => i.id + (i.checked ? ' on' : ''))`),
    ['period-monthly on', 'period-yearly', 'plan-starter', 'plan-team on', 'addon-support', 'addon-storage on'],
  );
});

s('hover on a clipped toggle button hovers its label', async () => {
  const o = await open('/pricing.html');
  const r = await act({ state_id: o.state_id, action: 'hover', ref: roleRef(o, 'checkbox', 'Extra storage') });
  assert.is(r.status, 'completed', `${r.error_type} ${r.error_text}`);
  assert.is(await evaluate(server, o.target_id, `document.querySelector('label:hover')?.htmlFor`), 'addon-storage');
  assert.equal(await pricingState(o.target_id), { changes: [], clicks: [] });
});

s(
  'switches with a 0×0 input inside their label (W3Schools, and in a closed shadow root), a visually hidden checkbox: on and off, once each',
  async () => {
    let o = await open('/pricing.html');
    const steps: Array<[string, boolean]> = [
      ['Renew automatically', true],
      ['Pause my subscription', true],
      ['Email me my invoices', true],
      ['Renew automatically', false],
    ];
    for (const [name, checked] of steps) {
      const r = await act({ state_id: o.state_id, action: 'check', ref: roleRef(o, 'checkbox', name), checked });
      assert.is(r.status, 'completed', `${name}: ${r.error_type} ${r.error_text} ${JSON.stringify(r.hit)}`);
      o = r.fresh_state!;
    }
    assert.equal(await pricingState(o.target_id), {
      changes: ['auto-renew on', 'pause on', 'invoices on', 'auto-renew off'],
      clicks: ['auto-renew', 'settings-switch', 'invoices', 'auto-renew'],
    });
  },
);

s('a 0×0 input with no label (its slider toggles it by script): still not_visible', async () => {
  const o = await open('/pricing.html');
  const r = await act({ state_id: o.state_id, action: 'check', ref: roleRef(o, 'checkbox', 'Show prices with tax'), checked: true });
  assert.is(r.status, 'action_failed');
  assert.is(r.error_type, 'not_visible');
  assert.is(r.error_text, 'no part of the element is inside the viewport');
  assert.is(r.hit, undefined);
  assert.equal(await pricingState(o.target_id), { changes: [], clicks: [] });
});

s.run();
