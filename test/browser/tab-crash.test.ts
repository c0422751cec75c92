// A renderer crash is reported twice (the page's Inspector.targetCrashed and the browser's
// Target.targetCrashed), in either order and, on a busy machine, apart: a client that saw the
// first report may already have sent a recovering navigate when the second arrives. Against a
// scripted peer: the first report fails what was pending, the second leaves later calls alone; a
// second report from the same reporter is a new crash.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { isCdpError } from '../../src/cdp/errors.ts';
import { until } from '../helpers/fake-cdp.ts';
import { mainFrame, openFakeTab } from '../helpers/fake-tab.ts';

const s = suite('tab: renderer crash reports');

const open = openFakeTab;

/** How a pending call ended: 'failed' (the crash ended it) or 'pending'. */
function watch(call: Promise<unknown>): () => 'failed' | 'pending' | 'answered' {
  let state: 'failed' | 'pending' | 'answered' = 'pending';
  call.then(() => (state = 'answered'), (error) => (state = isCdpError(error) && error.kind === 'closed' ? 'failed' : 'answered'));
  return () => state;
}

for (const [first, second] of [['page', 'browser'], ['browser', 'page']] as const) {
  s(`reported by the ${first} first: the ${second}'s later report leaves a recovering navigate alone`, async () => {
    const { peer, tab, crashes } = await open();
    const held = watch(tab.session.send('Runtime.evaluate', { expression: '1' }));
    assert.ok(tab.reportCrash(first), 'the first report is a crash');
    await until(() => held() !== 'pending');
    assert.is(held(), 'failed', 'what the dead renderer held is failed');
    assert.ok(tab.crashed);
    assert.is(crashes(), 1);

    const recovering = watch(tab.session.send('Page.navigate', { url: 'http://127.0.0.1/next' }));
    assert.not.ok(tab.reportCrash(second), "the other reporter's report is the same crash");
    // The new renderer answers the navigate: it must still be waiting for that answer.
    peer.reply(peer.lastSent('Page.navigate')!.id, { frameId: 'F1', loaderId: 'L2' }, 'S1');
    await until(() => recovering() !== 'pending');
    assert.is(recovering(), 'answered', 'the navigate sent after the first report is not failed');
    assert.is(crashes(), 1, 'one crash, one crashed event');
  });
}

s('a second report from the same reporter is a new crash: it fails the recovering navigate', async () => {
  const { tab, crashes } = await open();
  tab.reportCrash('page');
  tab.reportCrash('browser');
  const recovering = watch(tab.session.send('Page.navigate', { url: 'http://127.0.0.1/next' }));
  assert.ok(tab.reportCrash('page'), 'the new renderer crashed too');
  await until(() => recovering() !== 'pending');
  assert.is(recovering(), 'failed');
  assert.is(crashes(), 2);
});

s('a late report of a crash after a new document committed does not mark the tab crashed again', async () => {
  const { peer, tab } = await open();
  tab.reportCrash('page');
  peer.emit('Page.frameNavigated', {
    frame: mainFrame('L2', 'http://127.0.0.1/next'),
    type: 'Navigation',
  }, 'S1');
  await until(() => !tab.crashed);
  assert.not.ok(tab.reportCrash('browser'));
  assert.not.ok(tab.crashed, 'the new document is alive');
});

s.run();
