// max_bytes and cursors (PROTOCOL.md §6, "Budgets and cursors") on real big pages: every part
// within its budget, and the parts read one after another are the whole observation of the same
// state, no element lost or doubled, no line skipped.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import type { RpcCallError } from '../helpers/client.ts';
import { openAlone, withSession } from '../helpers/session-suite.ts';
import type { ActResult, Observation } from '../helpers/wire.ts';

const s = suite('budgets and cursors');
const ctx = withSession(s, 'budgets');

const bytes = (value: unknown) => new TextEncoder().encode(JSON.stringify(value)).length;

async function observe(params: Record<string, unknown>): Promise<Observation> {
  return ctx.client.call<Observation>('observe', { session_id: ctx.sessionId, ...params });
}

/** Every part of a cut observation, from its first. */
async function readOn(first: Observation, maxBytes: number): Promise<Observation[]> {
  const parts = [first];
  while (parts.at(-1)!.next_cursor) {
    const part = await observe({ cursor: parts.at(-1)!.next_cursor, max_bytes: maxBytes });
    assert.ok(bytes(part) <= maxBytes, `part ${parts.length}: ${bytes(part)} bytes`);
    assert.is(part.state_id, first.state_id);
    parts.push(part);
  }
  return parts;
}

/** The lines of parts read one after another (a line split across two parts joined back). */
function linesOf(parts: Observation[], key: 'tree' | 'text'): string {
  return parts.map((p) => p[key] ?? '').filter((piece) => piece !== '').join('\n');
}

for (
  const [path, extra] of [['/long-index.html?entries=300', { max_elements: 500 }], ['/large-table.html', { include_text: true }]] as const
) {
  s(`${path}: the parts are the whole observation, each within max_bytes`, async () => {
    const targetId = await openAlone(ctx, path);
    const whole = await observe({ target_id: targetId, ...extra });
    const maxBytes = 6000;
    const first = await observe({ target_id: targetId, ...extra, max_bytes: maxBytes });
    assert.ok(bytes(whole) > 3 * maxBytes, `the page is big enough to be cut: ${JSON.stringify(whole.frames)}`);
    assert.ok(bytes(first) <= maxBytes, `${bytes(first)} bytes`);
    assert.ok(first.next_cursor);
    const parts = await readOn(first, maxBytes);
    const refs = parts.flatMap((p) => p.elements.map((e) => e.ref));
    assert.is(new Set(refs).size, refs.length, 'no element twice');
    assert.equal(refs, whole.elements.map((e) => e.ref), 'none lost, in order');
    assert.is(linesOf(parts, 'tree'), whole.tree);
    if ('include_text' in extra) assert.is(linesOf(parts, 'text'), whole.text);
    // The state is the first part's, and act takes it while it is the tab's current one.
    const link = parts.at(-1)!.elements.find((e) => e.role === 'link' || e.role === 'button' || e.role === 'columnheader');
    if (link) {
      const r = await ctx.client.call<ActResult>('act', {
        session_id: ctx.sessionId,
        state_id: first.state_id,
        action: 'hover',
        ref: link.ref,
      });
      assert.is(r.status, 'completed', r.error_text);
    }
  });
}

s("act's fresh observation, wait and tabs.new are cut the same way", async () => {
  const targetId = await openAlone(ctx, '/long-index.html?entries=300');
  const seen = await observe({ target_id: targetId });
  const link = seen.elements.find((e) => e.role === 'link')!;
  const r = await ctx.client.call<ActResult>('act', {
    session_id: ctx.sessionId,
    state_id: seen.state_id,
    action: 'hover',
    ref: link.ref,
    observe: { max_bytes: 4096 },
  });
  assert.ok(r.fresh_state && bytes(r.fresh_state) <= 4096 && r.fresh_state.next_cursor, JSON.stringify(r.fresh_state).slice(0, 200));
  const rest = await readOn(r.fresh_state, 50_000);
  assert.ok(rest.length > 1);
  const waited = await ctx.client.call<{ observation: Observation }>('wait', {
    session_id: ctx.sessionId,
    target_id: targetId,
    selector: 'body',
    max_bytes: 3000,
  });
  assert.ok(bytes(waited.observation) <= 3000 && waited.observation.next_cursor);
  const opened = await ctx.client.call<{ target_id: string; observation: Observation }>('tabs.new', {
    session_id: ctx.sessionId,
    url: ctx.fixtures.url('/large-table.html'),
    observe: true,
    max_bytes: 5000,
  });
  assert.ok(bytes(opened.observation) <= 5000 && opened.observation.next_cursor);
});

s('a cursor takes no other shaping; a bad or forgotten cursor is invalid_params', async () => {
  const targetId = await openAlone(ctx, '/large-table.html');
  const first = await observe({ target_id: targetId, max_bytes: 4000 });
  for (
    const bad of [{ cursor: first.next_cursor, max_elements: 10 }, { cursor: first.next_cursor, target_id: targetId }, {
      cursor: 'st_1~0.0',
    }, {
      cursor: 'nonsense',
    }]
  ) {
    const error = await observe(bad).then(() => undefined, (e: RpcCallError) => e);
    assert.is(error?.type, 'invalid_params', JSON.stringify(bad));
  }
  // Another session does not read this one's cursors.
  const other = (await ctx.client.call<{ session_id: string }>('session.create', { name: 'budgets-other' })).session_id;
  try {
    const error = await ctx.client.call('observe', { session_id: other, cursor: first.next_cursor }).then(
      () => undefined,
      (e: RpcCallError) => e,
    );
    assert.is(error?.type, 'invalid_params');
  } finally {
    await ctx.client.call('session.close', { session_id: other });
  }
});

s.run();
