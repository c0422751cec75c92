// A tab's held dialog and pending file chooser against a scripted peer (PROTOCOL.md §8): no
// entry outlives its dialog or chooser, whether or not the browser says it closed (a crash, a
// navigation, a removed frame, an answer the browser refuses because the dialog is already gone),
// and a chooser stays pending until a resolution succeeds.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import type { Tab } from '../../src/browser/tab.ts';
import { until } from '../helpers/fake-cdp.ts';
import type { FakeCdpPeer } from '../helpers/fake-cdp.ts';
import { frameInfo, openFakeTab } from '../helpers/fake-tab.ts';

const s = suite('tab modals');

async function withDialog(frameId = 'F1'): Promise<{ peer: FakeCdpPeer; tab: Tab }> {
  const opened = await openFakeTab();
  opened.peer.emit(
    'Page.javascriptDialogOpening',
    { url: 'http://127.0.0.1/', frameId, message: 'Leave?', type: 'confirm', hasBrowserHandler: true, defaultPrompt: '' },
    'S1',
  );
  await until(() => opened.tab.dialogs.pending !== undefined);
  return opened;
}

async function withChooser(frameId = 'F1'): Promise<{ peer: FakeCdpPeer; tab: Tab }> {
  const opened = await openFakeTab();
  opened.peer.emit('Page.fileChooserOpened', { frameId, mode: 'selectSingle', backendNodeId: 7 }, 'S1');
  await until(() => opened.tab.fileChooser.pending !== undefined);
  return opened;
}

s('a dialog answered after the browser closed it: handle says none, and the entry is gone at once', async () => {
  const { peer, tab } = await withDialog();
  peer.answer('Page.handleJavaScriptDialog', () => ({ error: { code: -32602, message: 'No dialog is showing' } }));
  assert.is(await tab.dialogs.handle(true), undefined, 'no dialog was answered');
  assert.is(tab.dialogs.pending, undefined, 'not held until a closed event that may never come');
});

s('a dialog answered: handle returns it; the entry goes with the closed event', async () => {
  const { peer, tab } = await withDialog();
  peer.answer('Page.handleJavaScriptDialog', () => ({ result: {} }));
  assert.is((await tab.dialogs.handle(false))?.message, 'Leave?');
  peer.emit('Page.javascriptDialogClosed', { frameId: 'F1', result: false, userInput: '' }, 'S1');
  await until(() => tab.dialogs.pending === undefined);
});

s('a dialog dies with its document: the renderer crashed, its frame navigated, or its frame was removed', async () => {
  let { tab, peer } = await withDialog();
  tab.reportCrash('page');
  assert.is(tab.dialogs.pending, undefined, 'a crash without a closed event');

  ({ tab, peer } = await withDialog());
  peer.emit('Page.frameNavigated', { frame: frameInfo('L2', 'http://127.0.0.1/next'), type: 'Navigation' }, 'S1');
  await until(() => tab.dialogs.pending === undefined);

  ({ tab, peer } = await withDialog('F2'));
  peer.emit('Page.frameAttached', { frameId: 'F2', parentFrameId: 'F1' }, 'S1');
  peer.emit('Page.frameDetached', { frameId: 'F2', reason: 'swap' }, 'S1');
  peer.emit('Page.frameNavigated', { frame: frameInfo('L3', 'http://127.0.0.1/other', 'F3', 'F1'), type: 'Navigation' }, 'S1');
  // Events are routed one per task: once a later one is seen, these were too.
  peer.emit('Page.javascriptDialogOpening', {
    url: '',
    frameId: 'F2',
    message: 'again',
    type: 'alert',
    hasBrowserHandler: true,
    defaultPrompt: '',
  }, 'S1');
  await until(() => tab.dialogs.pending?.message === 'again');
  assert.is(tab.dialogs.pending?.frameId, 'F2', 'a frame moving to another process, or another frame navigating, leaves it');
  peer.emit('Page.frameDetached', { frameId: 'F2', reason: 'remove' }, 'S1');
  await until(() => tab.dialogs.pending === undefined);
});

s('a chooser whose resolution fails stays pending; one that succeeds is gone; resolutions run one at a time', async () => {
  const { tab } = await withChooser();
  const failed = await tab.fileChooser.resolve(() => Promise.reject(new Error('DOM.setFileInputFiles: Node is not a file input element')))
    .catch((error: Error) => error.message);
  assert.match(String(failed), /not a file input/);
  assert.ok(tab.fileChooser.pending, 'still pending after the failure');
  let release!: () => void;
  const first = tab.fileChooser.resolve((chooser) => new Promise<number>((resolve) => (release = () => resolve(chooser.backendNodeId!))));
  const second = tab.fileChooser.resolve(async () => 'ran twice');
  await until(() => release !== undefined);
  release();
  assert.is(await first, 7);
  assert.is(await second, undefined, 'the second found nothing pending');
  assert.is(tab.fileChooser.pending, undefined);
});

s('a chooser dies with its document: the renderer crashed, or its frame was removed', async () => {
  let { tab, peer } = await withChooser();
  tab.reportCrash('browser');
  assert.is(tab.fileChooser.pending, undefined);
  ({ tab, peer } = await withChooser('F2'));
  peer.emit('Page.frameDetached', { frameId: 'F2', reason: 'remove' }, 'S1');
  await until(() => tab.fileChooser.pending === undefined);
});

s.run();
