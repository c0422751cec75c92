// The in-page module on a page that fights automation in its own world (patched Function.prototype
// call/apply/bind, swallowed focus(), trapped globals named like ours, no MutationObserver): none of
// it reaches our calls, which run in an isolated world; and each new document gets the module
// once, with every later call only naming its function.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { evaluate, functionsSentDuring, tabOf } from '../helpers/page.ts';
import { withSession } from '../helpers/session-suite.ts';
import { type ActResult, type Observation, ref } from '../helpers/wire.ts';

const s = suite('in-page module');
const ctx = withSession(s, 'page-module');

/** What installs code in a context, as opposed to calling code already there (a few hundred bytes at most). */
const carriesSource = (declaration: string) => declaration.length > 1_000;

s('on a page that patches Function.prototype and traps our names, acts work and each document gets the module exactly once', async () => {
  const call = <T>(method: string, params: Record<string, unknown>) =>
    ctx.client.call(method as 'observe', { session_id: ctx.sessionId, ...params } as never) as Promise<T>;
  const { target_id } = await ctx.client.call('tabs.new', { session_id: ctx.sessionId, url: ctx.fixtures.url('/newsletter-guarded.html') });
  const tab = tabOf(ctx.server, target_id);
  const subscribe = async (email: string): Promise<Observation> => {
    const o = await call<Observation>('observe', { target_id });
    const filled = await call<ActResult>('act', { target_id, state_id: o.state_id, action: 'fill', ref: ref(o, 'Email'), text: email });
    assert.is(filled.status, 'completed', JSON.stringify(filled));
    const fresh = filled.fresh_state!;
    const clicked = await call<ActResult>('act', { target_id, state_id: fresh.state_id, action: 'click', ref: ref(fresh, 'Subscribe') });
    assert.is(clicked.status, 'completed', JSON.stringify(clicked));
    return clicked.fresh_state!;
  };
  const first = await functionsSentDuring(tab.session, async () => {
    const after = await subscribe('ada@example.com');
    assert.match(after.tree, /Subscribed ada@example\.com/);
  });
  assert.is(first.filter(carriesSource).length, 1, `one install for the document (${first.map((d) => d.length).join(', ')} characters)`);
  assert.ok(first.length > 3, 'observe, fill and click called in-page functions');
  assert.ok(carriesSource(first[0]!), 'the first call in the document installs');
  // The page's wrappers of call/apply count every use: ours never touched them.
  assert.is(await evaluate(ctx.server, target_id, 'window.__guardHits ?? 0'), 0);

  const second = await functionsSentDuring(tab.session, async () => {
    const before = await call<Observation>('observe', { target_id });
    const moved = await call<ActResult>('act', { target_id, state_id: before.state_id, action: 'click', ref: ref(before, 'Archive') });
    assert.is(moved.status, 'completed', JSON.stringify(moved));
    assert.is.not(moved.fresh_state!.document.loader_id, before.document.loader_id, 'a new document');
    const after = await subscribe('grace@example.com');
    assert.match(after.tree, /Subscribed grace@example\.com/);
  });
  assert.is(
    second.filter(carriesSource).length,
    1,
    `one install for the new document (${second.map((d) => d.length).join(', ')} characters)`,
  );
  const all = [...first, ...second];
  assert.ok(all.filter((d) => !carriesSource(d)).every((d) => d.length < 160), 'calls by name are short');
});

s.run();
