// resolveKept (src/actions/node-handle.ts) against a real page: a node looked up again is the
// same handle, and past the limit the least recently used handle is released in the page.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { resolveKept } from '../../src/actions/node-handle.ts';
import { tabOf } from '../helpers/page.ts';
import { withSession } from '../helpers/session-suite.ts';

const s = suite('node handles kept across acts');
const ctx = withSession(s, 'node-handle');

s('the same node gives the same handle; the least recently used of 33 is released', async () => {
  const { target_id } = await ctx.client.call('tabs.new', { session_id: ctx.sessionId, url: ctx.fixtures.url('/buttons-400.html') });
  const tab = tabOf(ctx.server, target_id);
  const frame = tab.frames.get(tab.mainFrameId)!;
  const contextId = await ctx.server.server.host.current!.worlds.contextFor(frame.session, frame.id, frame.loaderId);
  const node = (backendNodeId: number) => ({ backendNodeId, executionContextId: contextId, loaderId: frame.loaderId });
  const { nodes } = await frame.session.send('Accessibility.getFullAXTree', {});
  const buttons = nodes.filter((n) => n.role?.value === 'button').map((n) => n.backendDOMNodeId!).slice(0, 34);
  assert.is(buttons.length, 34);
  const alive = async (objectId: string) =>
    frame.session.send('Runtime.callFunctionOn', {
      objectId,
      functionDeclaration: 'function () { return this.textContent; }',
      returnByValue: true,
    }).then(
      (r) => r.result.value as string,
      () => undefined,
    );

  const first = await resolveKept(frame.session, node(buttons[0]!));
  const second = await resolveKept(frame.session, node(buttons[1]!));
  assert.is((await resolveKept(frame.session, node(buttons[0]!))).objectId, first.objectId, 'looked up again: the same handle');
  assert.is(await alive(first.objectId), 'Button 1');
  // 31 more: 33 in all, and button 2 is now the least recently used (button 1 was used again).
  for (const id of buttons.slice(2, 33)) await resolveKept(frame.session, node(id));
  assert.is(await alive(second.objectId), undefined, 'the least recently used handle was released');
  assert.is(await alive(first.objectId), 'Button 1', 'a recently used one was kept');
  const again = await resolveKept(frame.session, node(buttons[1]!));
  assert.is.not(again.objectId, second.objectId);
  assert.is(await alive(again.objectId), 'Button 2');
});

s.run();
