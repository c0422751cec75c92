// An accessibility read of one element (src/observe/ax-part.ts, what patches an observation)
// must never take the renderer down. Accessibility.queryAXTree on a node whose document has been
// replaced (a navigation committed) crashes the renderer (SIGSEGV) — what crashed tabs under
// concurrent load (issue 16 point 3, CDP-NOTES "Accessibility reads across a navigation").
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { readAxPart } from '../../src/observe/ax-part.ts';
import { tabOf } from '../helpers/page.ts';
import { withSession } from '../helpers/session-suite.ts';
import type { Observation } from '../helpers/wire.ts';

const s = suite('accessibility parts');
const ctx = withSession(s, 'ax-part');

s('an accessibility read of a node whose document was replaced fails; the renderer lives on', async () => {
  const { client, sessionId, fixtures, server } = ctx;
  const { target_id: targetId } = await client.call<{ target_id: string }>('tabs.new', {
    session_id: sessionId,
    url: fixtures.url('/counter.html'),
  });
  const tab = tabOf(server, targetId);
  const frame = tab.frames.get(tab.mainFrameId)!;
  const { result } = await tab.session.send('Runtime.evaluate', { expression: 'window.kept = document.getElementById("count")' });
  const { node } = await tab.session.send('DOM.describeNode', { objectId: result.objectId! });
  const part = await readAxPart(frame, node.backendNodeId, { timeoutMs: 5_000 });
  assert.ok(part.subtree.some((n) => n.backendDOMNodeId === node.backendNodeId && n.role?.value === 'status'));

  const o = await client.call<Observation>('observe', { session_id: sessionId, target_id: targetId });
  const navigated = await client.call<{ status: string }>('act', {
    session_id: sessionId,
    target_id: targetId,
    state_id: o.state_id,
    action: 'navigate',
    url: fixtures.url('/signup.html'),
  });
  assert.is(navigated.status, 'completed');
  // The node of the counter page is still alive (the old document is not collected yet), but its
  // document is no longer the frame's.
  const stale = await readAxPart(frame, node.backendNodeId, { timeoutMs: 5_000 }).then(
    () => 'answered',
    (error: Error) => error.message,
  );
  assert.is.not(stale, 'answered');
  // A round trip later, the renderer still answers and never crashed.
  const title = await tab.session.sendWith({ timeoutMs: 5_000 }, 'Runtime.evaluate', { expression: 'document.title', returnByValue: true })
    .then(
      (r) => r.result.value as string,
      (error: Error) => `no answer: ${error.message}`,
    );
  assert.is(title, 'Create your account · Acme');
  assert.not.ok(tab.crashed, 'the renderer crashed');
  await client.call('tabs.close', { session_id: sessionId, target_id: targetId });
});

s("a part is the element's subtree as the full tree has it, inline text boxes aside", async () => {
  const { client, sessionId, fixtures, server } = ctx;
  const { target_id: targetId } = await client.call<{ target_id: string }>('tabs.new', {
    session_id: sessionId,
    url: fixtures.url('/counter.html'),
  });
  const tab = tabOf(server, targetId);
  const frame = tab.frames.get(tab.mainFrameId)!;
  // Three levels of controls below one element, an ignored wrapper, an element not in the tree.
  await tab.session.send('Runtime.evaluate', {
    expression: `document.querySelector('main').insertAdjacentHTML('beforeend',
      '<section id="deep" aria-label="Deep"><ul><li><button>One <b>bold</b></button></li><li><a href="#two"><span>Two</span></a></li></ul></section>' +
      '<div id="gone" style="display:none"><button>Hidden</button></div>')`,
  });
  const { nodes } = await tab.session.send('Accessibility.getFullAXTree', {});
  const byId = new Map(nodes.map((n) => [n.nodeId, n]));
  const expected = (backendNodeId: number) => {
    const own = nodes.find((n) => n.backendDOMNodeId === backendNodeId);
    const out = new Map<string, string[]>();
    const visit = (id: string) => {
      const n = byId.get(id);
      if (!n || n.role?.value === 'InlineTextBox') return;
      out.set(id, (n.childIds ?? []).filter((child) => byId.get(child)?.role?.value !== 'InlineTextBox'));
      for (const child of n.childIds ?? []) visit(child);
    };
    if (own) visit(own.nodeId);
    return out;
  };
  for (const selector of ['#deep', '#deep ul', '#count', 'button[data-action="increment"] span', '#gone', '#app']) {
    const { result } = await tab.session.send('Runtime.evaluate', { expression: `document.querySelector(${JSON.stringify(selector)})` });
    const { node } = await tab.session.send('DOM.describeNode', { objectId: result.objectId! });
    const part = await readAxPart(frame, node.backendNodeId, { timeoutMs: 5_000 });
    const listed = (entries: Iterable<[string, string[]]>) => [...entries].map(([id, children]) => `${id} > ${children.join(' ')}`).sort();
    assert.equal(listed(part.subtree.map((n) => [n.nodeId, n.childIds ?? []])), listed(expected(node.backendNodeId)), selector);
    assert.is(part.relatives[0]?.backendDOMNodeId, node.backendNodeId, `${selector}: relatives start with the element`);
  }
  await client.call('tabs.close', { session_id: sessionId, target_id: targetId });
});

s.run();
