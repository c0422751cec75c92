// A refused act that consumed its state answers with the page as it is now (PROTOCOL.md §7): its
// fresh observation is the tab's current state, and the ref to use next is in it, so the caller's
// next call acts instead of observing first. A state never issued gets none.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { evaluate, functionsSentDuring, tabOf } from '../helpers/page.ts';
import { openAlone, withSession } from '../helpers/session-suite.ts';
import { type ActResult, freshState, type Observation, ref } from '../helpers/wire.ts';

const s = suite('act refusals observe');
const ctx = withSession(s, 'act-refusals');

function observe(targetId: string): Promise<Observation> {
  return ctx.client.call<Observation>('observe', { session_id: ctx.sessionId, target_id: targetId });
}

function act(params: Record<string, unknown>): Promise<ActResult> {
  return ctx.client.call<ActResult>('act', { session_id: ctx.sessionId, ...params });
}

function statusText(targetId: string): Promise<string> {
  return evaluate<string>(ctx.server, targetId, `document.getElementById('status').textContent`);
}

/** The refusal's words, and that its fresh observation is the tab's current state. */
function refusedWith(r: ActResult, errorType: string): Observation {
  assert.is(r.error_type, errorType, r.error_text);
  assert.is(r.execution, 'not_dispatched');
  assert.is(r.observation, 'captured');
  return freshState(r);
}

s('stale_state: the fresh observation shows what changed since, and its ref acts', async () => {
  const targetId = await openAlone(ctx, '/cart.html');
  const seen = await observe(targetId);
  await observe(targetId);
  // A button the stale state never saw, added after it.
  await evaluate(
    ctx.server,
    targetId,
    `(() => { const b = document.createElement('button'); b.textContent = 'Restore saved cart';
      b.onclick = () => { document.getElementById('status').textContent = 'Cart restored'; }; document.querySelector('main').prepend(b); })()`,
  );
  const fresh = refusedWith(await act({ state_id: seen.state_id, action: 'click', ref: ref(seen, 'Add to cart') }), 'stale_state');
  const next = await act({ state_id: fresh.state_id, action: 'click', ref: ref(fresh, 'Restore saved cart') });
  assert.is(next.status, 'completed', next.error_text);
  assert.is(await statusText(targetId), 'Cart restored');
});

s('node_detached: the re-rendered button is in the fresh observation, and clicking it works', async () => {
  const targetId = await openAlone(ctx, '/cart.html');
  const seen = await observe(targetId);
  await evaluate(
    ctx.server,
    targetId,
    `(() => { const b = document.querySelector('[data-action=add]'); b.replaceWith(b.cloneNode(true)); })()`,
  );
  const r = await act({ state_id: seen.state_id, action: 'click', ref: ref(seen, 'Add to cart') });
  assert.is(r.status, 'stale_reference');
  const fresh = refusedWith(r, 'node_detached');
  const next = await act({ state_id: fresh.state_id, action: 'click', ref: ref(fresh, 'Add to cart') });
  assert.is(next.status, 'completed', next.error_text);
  assert.is(await statusText(targetId), 'Added 1');
});

s('modal_blocked: the fresh observation shows the dialog', async () => {
  const targetId = await openAlone(ctx, '/cart.html');
  const seen = await observe(targetId);
  const opened = tabOf(ctx.server, targetId).dialogs.whenOpened();
  try {
    await evaluate(ctx.server, targetId, `setTimeout(() => confirm('Leave the checkout?'), 0)`);
    await opened.promise;
  } finally {
    opened.dispose();
  }
  const r = await act({ state_id: seen.state_id, action: 'click', ref: ref(seen, 'Add to cart') });
  assert.is(r.status, 'action_failed');
  const fresh = refusedWith(r, 'modal_blocked');
  assert.is(fresh.dialog?.message, 'Leave the checkout?');
  await ctx.client.call('dialog.handle', { session_id: ctx.sessionId, accept: false });
});

/** A consent banner over a link: the refusal names it and its dismissing control, and both clicks then work. */
async function clearTheWay(path: string, link: string, banner: { role: string; name: string }, dismiss: string): Promise<void> {
  const targetId = await openAlone(ctx, path);
  const seen = await observe(targetId);
  // The observation already tells what covers the link, and what dismisses it.
  const told = seen.blockers?.find((b) => b.covers.includes(ref(seen, link, 'link')));
  assert.equal({ role: told?.role, name: told?.name }, banner, JSON.stringify(seen.blockers));
  assert.is(seen.elements.find((e) => e.ref === told?.dismiss_ref)?.name, dismiss);
  const r = await act({ state_id: seen.state_id, action: 'click', ref: ref(seen, link, 'link') });
  assert.is(r.error_type, 'click_intercepted', r.error_text);
  const fresh = freshState(r);
  assert.equal({ role: r.hit?.role, name: r.hit?.name }, banner);
  assert.ok(r.hit?.ref && fresh.elements.every((e) => e.ref !== r.hit?.ref || e.name === banner.name), `hit.ref ${r.hit?.ref}`);
  assert.is(fresh.elements.find((e) => e.ref === r.hit?.dismiss_ref)?.name, dismiss);
  // The blocker's ref is one of the fresh state: observing it alone shows the banner.
  const inside = await ctx.client.call<Observation>('observe', { session_id: ctx.sessionId, target_id: targetId, root_ref: r.hit!.ref });
  assert.ok(inside.elements.some((e) => e.name === dismiss), inside.tree);
  const cleared = await act({ state_id: inside.state_id, action: 'click', ref: ref(inside, dismiss) });
  assert.is(cleared.status, 'completed', cleared.error_text);
  const followed = await act({ state_id: freshState(cleared).state_id, action: 'click', ref: ref(freshState(cleared), link, 'link') });
  assert.is(followed.status, 'completed', followed.error_text);
  assert.ok((await evaluate<string>(ctx.server, targetId, 'location.hash')).length > 1);
}

s('click_intercepted by a OneTrust banner: hit is the banner, dismiss_ref its Reject All', async () => {
  await clearTheWay('/news-consent.html', 'See the full timetable', { role: 'region', name: 'Cookie banner' }, 'Reject All');
});

s('click_intercepted by a Cookiebot dialog: hit is the dialog, dismiss_ref its Deny', async () => {
  await clearTheWay('/shop-consent.html', 'Size guide', { role: 'dialog', name: 'This website uses cookies' }, 'Deny');
});

s('click_intercepted by a newsletter popup whose close button is only "×": dismiss_ref is the ×, not Subscribe', async () => {
  await clearTheWay('/recipe-popup.html', 'Jump to recipe', { role: 'dialog', name: 'Get a new recipe every Friday' }, '×');
});

s('blockers: one act clears the way and follows the link; what the banner holds, and a sticky header, are not covered', async () => {
  const targetId = await openAlone(ctx, '/news-consent.html');
  const seen = await observe(targetId);
  const [banner, ...others] = seen.blockers ?? [];
  assert.is(others.length, 0, JSON.stringify(seen.blockers));
  assert.ok(banner?.covers.includes(ref(seen, 'See the full timetable', 'link')));
  for (const name of ['Reject All', 'Accept All Cookies', 'Local', 'Transport']) {
    assert.not.ok(banner?.covers.includes(ref(seen, name)), `${name} is not covered`);
  }
  const r = await act({
    state_id: seen.state_id,
    actions: [{ action: 'click', ref: banner!.dismiss_ref! }, { action: 'click', ref: ref(seen, 'See the full timetable', 'link') }],
  });
  assert.is(r.status, 'completed', r.error_text);
  assert.is(freshState(r).blockers, undefined);
  assert.is(await evaluate<string>(ctx.server, targetId, 'location.hash'), '#timetable');
});

s('blockers are asked of the page once while nothing changes; a banner hidden, or shown again, is told at once', async () => {
  const targetId = await openAlone(ctx, '/news-consent.html');
  const session = tabOf(ctx.server, targetId).session;
  const asksCovers = (declarations: string[]) => declarations.some((d) => d.includes('.coversAt.apply('));
  const first = await observe(targetId);
  assert.is(first.blockers?.[0]?.name, 'Cookie banner', JSON.stringify(first.blockers));
  let again: Observation | undefined;
  const unchanged = await functionsSentDuring(session, async () => (again = await observe(targetId)));
  assert.not.ok(asksCovers(unchanged), 'an unchanged page is not hit-tested again');
  assert.equal(again!.blockers, first.blockers);

  await evaluate(ctx.server, targetId, `document.getElementById('onetrust-banner-sdk').classList.add('ot-hide')`);
  let hidden: Observation | undefined;
  assert.ok(asksCovers(await functionsSentDuring(session, async () => (hidden = await observe(targetId)))));
  assert.is(hidden!.blockers, undefined, JSON.stringify(hidden!.blockers));

  await evaluate(ctx.server, targetId, `document.getElementById('onetrust-banner-sdk').classList.remove('ot-hide')`);
  const shown = await observe(targetId);
  assert.is(shown.blockers?.[0]?.name, 'Cookie banner', JSON.stringify(shown.blockers));
  assert.ok(shown.blockers?.[0]?.covers.includes(ref(shown, 'See the full timetable', 'link')));
});

s('blockers: text typed into the popup changes no layout, so what covers the page is not asked again, and is still told', async () => {
  const targetId = await openAlone(ctx, '/recipe-popup.html');
  const session = tabOf(ctx.server, targetId).session;
  const seen = await observe(targetId);
  assert.is(seen.blockers?.length, 1, JSON.stringify(seen.blockers));
  let typed: ActResult | undefined;
  const sent = await functionsSentDuring(session, async () => {
    typed = await act({ state_id: seen.state_id, action: 'type', ref: ref(seen, 'Email address'), text: 'cook@example.com' });
  });
  assert.is(typed!.status, 'completed', typed!.error_text);
  assert.not.ok(sent.some((d) => d.includes('.coversAt.apply(')), 'the layout held: no hit test');
  assert.equal(freshState(typed!).blockers, seen.blockers);
  assert.is(await evaluate<string>(ctx.server, targetId, `document.querySelector('input[type=email]').value`), 'cook@example.com');
});

s('unknown_state: nothing was consumed, nothing is observed', async () => {
  const targetId = await openAlone(ctx, '/cart.html');
  const seen = await observe(targetId);
  const r = await act({ state_id: 'st_00000000_1', action: 'click', ref: ref(seen, 'Add to cart') });
  assert.is(r.error_type, 'unknown_state');
  assert.is(r.observation, 'unavailable');
  assert.is(r.fresh_state, undefined);
});

s.run();
