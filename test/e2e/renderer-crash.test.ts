// After a renderer crash (issue 16 point 3) the tab must come back whole: act navigate and act
// reload reach the new document's DOMContentLoaded, its controls are observed and can be acted
// on; a navigation under way when the renderer dies ends at once instead of waiting out its
// budget. (What crashed the renderers under load is pinned in ax-part.test.ts.)
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { tabOf } from '../helpers/page.ts';
import { openTab, withSession } from '../helpers/session-suite.ts';
import type { ActResult, Observation } from '../helpers/wire.ts';

interface EventParams {
  kind: string;
  data: Record<string, unknown>;
}

const s = suite('renderer crash');
const ctx = withSession(s, 'renderer-crash');

const COUNTER = ['Increment', 'Reset'];
const SIGNUP = ['Email address', 'Password', 'Invite code', 'Create account', 'Sign in'];

const names = (o: Observation | undefined) => new Set(o?.elements.map((e) => e.name) ?? []);
const refOf = (o: Observation, name: string) => {
  const element = o.elements.find((e) => e.name === name);
  if (!element) throw new Error(`no ${name} in\n${o.tree}`);
  return element.ref;
};

async function openObserved(path: string): Promise<{ targetId: string; o: Observation }> {
  const targetId = await openTab(ctx, path);
  return { targetId, o: await ctx.client.call<Observation>('observe', { session_id: ctx.sessionId, target_id: targetId }) };
}

function act(targetId: string, o: Observation, action: Record<string, unknown>): Promise<ActResult> {
  return ctx.client.call<ActResult>('act', { session_id: ctx.sessionId, target_id: targetId, state_id: o.state_id, ...action });
}

function clickIncrement(targetId: string, o: Observation, expected: number): Promise<ActResult> {
  return act(targetId, o, { action: 'click', ref: refOf(o, 'Increment'), expect: { selector: '#count', text: `Count: ${expected}` } });
}

/** Crashes the tab's renderer (CDP Page.crash) and resolves with the crash event. */
async function crash(targetId: string): Promise<EventParams> {
  const { client, sessionId, server } = ctx;
  const { subscription_id } = await client.call<{ subscription_id: string }>('events.subscribe', {
    session_id: sessionId,
    kinds: ['crash'],
  });
  const before = client.notifications.length;
  const event = client
    .waitForNotification((n) =>
      client.notifications.indexOf(n) >= before && n.method === 'event' && (n.params as EventParams).kind === 'crash'
    )
    .then((n) => n.params as EventParams);
  tabOf(server, targetId).session.send('Page.crash').catch(() => {});
  const crashed = await event;
  await client.call('events.unsubscribe', { subscription_id });
  return crashed;
}

/** The crash is observed as such; returns that (unusable but current) state for the next act. */
async function observeCrashed(targetId: string): Promise<Observation> {
  const o = await ctx.client.call<Observation>('observe', { session_id: ctx.sessionId, target_id: targetId });
  assert.is(o.elements.length, 0);
  assert.match(o.frames[0]!.reason ?? '', /crashed/);
  return o;
}

s('after a renderer crash, act navigate loads the new document; its controls are observed and clicked', async () => {
  const { client, sessionId, fixtures } = ctx;
  const { targetId, o } = await openObserved('/counter.html');
  // A click before the crash: the server keeps what it resolved in the renderer that will die.
  assert.is((await clickIncrement(targetId, o, 1)).status, 'verified');
  assert.is((await crash(targetId)).data['scope'], 'renderer');
  const dead = await observeCrashed(targetId);

  const started = Date.now();
  const navigated = await act(targetId, dead, { action: 'navigate', url: fixtures.url('/counter.html'), timeout_ms: 15_000 });
  assert.is(navigated.status, 'completed', `${navigated.error_type}: ${navigated.error_text}`);
  assert.ok(Date.now() - started < 10_000, `the navigation took ${Date.now() - started} ms`);
  assert.is(navigated.observation, 'captured');
  for (const name of COUNTER) assert.ok(names(navigated.fresh_state).has(name), `${name} in\n${navigated.fresh_state?.tree}`);

  // The new renderer numbers its contexts and nodes as the dead one did: nothing kept from the
  // dead one may be taken for them.
  const clicked = await clickIncrement(targetId, navigated.fresh_state!, 1);
  assert.is(clicked.status, 'verified', `${clicked.error_type}: ${clicked.error_text}`);
  const again = await clickIncrement(targetId, clicked.fresh_state!, 2);
  assert.is(again.status, 'verified', `${again.error_type}: ${again.error_text}`);
  await client.call('tabs.close', { session_id: sessionId, target_id: targetId });
});

s('after a renderer crash, act reload loads the page again; its controls are observed and clicked', async () => {
  const { client, sessionId } = ctx;
  const { targetId, o } = await openObserved('/counter.html');
  assert.is((await clickIncrement(targetId, o, 1)).status, 'verified');
  await crash(targetId);
  const dead = await observeCrashed(targetId);

  const reloaded = await act(targetId, dead, { action: 'reload', timeout_ms: 15_000 });
  assert.is(reloaded.status, 'completed', `${reloaded.error_type}: ${reloaded.error_text}`);
  assert.is(reloaded.observation, 'captured');
  for (const name of COUNTER) assert.ok(names(reloaded.fresh_state).has(name), `${name} in\n${reloaded.fresh_state?.tree}`);
  const clicked = await clickIncrement(targetId, reloaded.fresh_state!, 1);
  assert.is(clicked.status, 'verified', `${clicked.error_type}: ${clicked.error_text}`);
  await client.call('tabs.close', { session_id: sessionId, target_id: targetId });
});

/**
 * Starts a navigation to a page whose DOMContentLoaded waits 20 s for a script, crashes the
 * renderer once that page has committed, and checks that the act ends at once and the tab then
 * navigates again.
 */
async function crashWhileLoading(start: (targetId: string, o: Observation, url: string) => Promise<ActResult>): Promise<void> {
  const { client, sessionId, fixtures, server } = ctx;
  const { targetId, o } = await openObserved('/counter.html');
  const tab = tabOf(server, targetId);
  const committed = new Promise<void>((resolve) => {
    const subscription = tab.session.on('Page.frameNavigated', (e) => {
      if (e.frame.parentId === undefined && e.frame.url.includes('/slow-script')) {
        subscription.dispose();
        resolve();
      }
    });
  });
  const started = Date.now();
  const pending = start(targetId, o, fixtures.url('/slow-script?ms=20000'));
  await committed;
  tab.session.send('Page.crash').catch(() => {});
  const r = await pending;
  // Not its 30 s budget, nor the 3 s of a capture asking a dead renderer.
  assert.ok(Date.now() - started < 2_500, `the act ended ${Date.now() - started} ms after it began (budget 30 s)`);
  assert.is(r.status, 'action_failed');
  assert.match(r.fresh_state?.frames[0]?.reason ?? '', /crashed/);
  assert.match(r.error_text ?? '', /crashed/);

  const dead = await observeCrashed(targetId);
  const next = await act(targetId, dead, { action: 'navigate', url: fixtures.url('/signup.html'), timeout_ms: 15_000 });
  assert.is(next.status, 'completed', `${next.error_type}: ${next.error_text}`);
  for (const name of SIGNUP) assert.ok(names(next.fresh_state).has(name), `${name} in\n${next.fresh_state?.tree}`);
  await client.call('tabs.close', { session_id: sessionId, target_id: targetId });
}

s('an act navigate under way when the renderer crashes ends at once; the next one loads the page', async () => {
  await crashWhileLoading((targetId, o, url) => act(targetId, o, { action: 'navigate', url, timeout_ms: 30_000 }));
});

s('a click on a link whose page is loading when the renderer crashes ends at once; the next navigate loads the page', async () => {
  await crashWhileLoading(async (targetId, _o, url) => {
    const { client, sessionId, server } = ctx;
    await tabOf(server, targetId).session.send('Runtime.evaluate', {
      expression: `document.querySelector('a[href="signup.html"]').href = ${JSON.stringify(url)}`,
    });
    const o = await client.call<Observation>('observe', { session_id: sessionId, target_id: targetId });
    return act(targetId, o, { action: 'click', ref: refOf(o, 'Sign up'), timeout_ms: 30_000 });
  });
});

s.run();
