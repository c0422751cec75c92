// The viewport of a tab (PROTOCOL.md §1 --viewport, §4 session.create {viewport}): a desktop's by
// default, so a documentation site shows its desktop layout rather than its mobile one (the
// browser's own headless window left about 780×490 CSS px, where python-docs-theme swaps its
// navigation for a "Menu" button).
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { evaluate, tabOf } from '../helpers/page.ts';
import { startTestServer } from '../helpers/pagewire.ts';
import { openAlone, withSession } from '../helpers/session-suite.ts';
import { elementNamed, nextEvent, type Observation } from '../helpers/wire.ts';

const s = suite('viewport');
const context = withSession(s, 'viewport');

const size = (targetId: string, server = context.server) => evaluate<[number, number]>(server, targetId, '[innerWidth, innerHeight]');

/** The docs page's layout as an observation shows it: the desktop's navigation, or the mobile bar's Menu. */
function layoutOf(o: Observation): 'desktop' | 'mobile' {
  const desktop = elementNamed(o, 'modules', 'link') !== undefined && elementNamed(o, 'Menu') === undefined;
  const mobile = elementNamed(o, 'Menu', 'button') !== undefined && elementNamed(o, 'modules', 'link') === undefined;
  if (desktop === mobile) throw new Error(`neither layout, or both:\n${o.tree}`);
  return desktop ? 'desktop' : 'mobile';
}

s('a session created without a viewport has 1280×720 in every tab: the docs show their desktop layout', async () => {
  const { client, sessionId } = context;
  const targetId = await openAlone(context, '/python-docs.html');
  assert.equal(await size(targetId), [1280, 720]);
  assert.is(layoutOf(await client.call('observe', { session_id: sessionId })), 'desktop');
  // A popup the page opens is a tab of the session too.
  const popup = await client.call('tabs.new', { session_id: sessionId, url: 'about:blank' });
  assert.equal(await size(popup.target_id), [1280, 720]);
  await client.call('events.subscribe', { session_id: sessionId, kinds: ['popup'] });
  const opened = nextEvent(client, 'popup', (event) => event.data.opener_id === targetId);
  // As a click would: without a user gesture the popup blocker keeps it closed.
  await tabOf(context.server, targetId).session.send('Runtime.evaluate', {
    expression: `window.open('about:blank#popup')`,
    userGesture: true,
  });
  assert.equal(await size((await opened).data.target_id), [1280, 720]);
});

s("the principal's default session has it too", async () => {
  const client = await context.server.connect();
  try {
    const o = await client.call('observe', {});
    assert.equal(await size(o.target_id), [1280, 720]);
  } finally {
    client.close();
  }
});

s('session.create {viewport} wins: at 800×600 the docs show their mobile layout, with the Menu button', async () => {
  const { client } = context;
  const { session_id: sessionId, target_id: first } = await client.call('session.create', {
    name: 'narrow',
    viewport: { width: 800, height: 600 },
  });
  try {
    assert.equal(await size(first), [800, 600]);
    const opened = await client.call('tabs.new', { session_id: sessionId, url: context.fixtures.url('/python-docs.html') });
    assert.equal(await size(opened.target_id), [800, 600]);
    assert.is(layoutOf(await client.call('observe', { session_id: sessionId })), 'mobile');
  } finally {
    await client.call('session.close', { session_id: sessionId });
  }
});

s('--viewport WxH is the default of a server', async () => {
  const server = await startTestServer(['--viewport', '1024x768']);
  try {
    const client = await server.connect();
    try {
      const { target_id: targetId } = await client.call('session.create', { name: 'flagged' });
      assert.equal(await size(targetId, server), [1024, 768]);
      const asked = await client.call('session.create', { name: 'asked', viewport: { width: 640, height: 480 } });
      assert.equal(await size(asked.target_id, server), [640, 480]);
    } finally {
      client.close();
    }
  } finally {
    await server.server.close();
  }
});

s.run();
