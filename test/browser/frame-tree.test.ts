// FrameTree bookkeeping from Page.* events and getFrameTree answers, including OOPIF hand-over.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { FrameTree } from '../../src/browser/frame-tree.ts';
import { Connection } from '../../src/cdp/connection.ts';
import { attachEvent, FakeCdpPeer, until } from '../helpers/fake-cdp.ts';

const s = suite('FrameTree');

async function sessions() {
  const peer = new FakeCdpPeer();
  const connection = new Connection(peer);
  peer.emit('Target.attachedToTarget', attachEvent('P', 'MAIN'));
  await until(() => connection.session('P') !== undefined);
  peer.emit('Target.attachedToTarget', attachEvent('C', 'OOPIF', 'iframe'), 'P');
  await until(() => connection.session('C') !== undefined);
  return { page: connection.session('P')!, child: connection.session('C')! };
}

const frame = (id: string, parentId: string | undefined, url: string, loaderId = 'L1') => ({
  id,
  parentId,
  loaderId,
  url,
  domainAndRegistry: '',
  securityOrigin: '',
  mimeType: 'text/html',
  secureContextType: 'Secure' as const,
  crossOriginIsolatedContextType: 'NotIsolated' as const,
  gatedAPIFeatures: [],
});

s('loads a tree main frame first, children in order; navigation updates url and loader', async () => {
  const { page } = await sessions();
  const tree = new FrameTree();
  tree.loadTree(page, {
    frame: frame('MAIN', undefined, 'http://a/'),
    childFrames: [{ frame: frame('F1', 'MAIN', 'http://a/1') }, { frame: frame('F2', 'MAIN', 'http://a/2') }],
  }, false);
  assert.equal(tree.list().map((f) => f.id), ['MAIN', 'F1', 'F2']);
  assert.is(tree.mainFrameId, 'MAIN');
  tree.onFrameNavigated(page, frame('F1', 'MAIN', 'http://a/other', 'L2'));
  assert.is(tree.get('F1')!.url, 'http://a/other');
  assert.is(tree.get('F1')!.loaderId, 'L2');
  tree.onNavigatedWithinDocument('F1', 'http://a/other#x');
  assert.is(tree.get('F1')!.url, 'http://a/other#x');
});

s('frameAttached keeps order; detach removes a subtree; swap keeps the frame for its OOPIF', async () => {
  const { page, child } = await sessions();
  const tree = new FrameTree();
  tree.loadTree(page, { frame: frame('MAIN', undefined, 'http://a/') }, false);
  tree.onFrameAttached(page, 'F1', 'MAIN');
  tree.onFrameAttached(page, 'F1a', 'F1');
  tree.onFrameAttached(page, 'OOPIF', 'MAIN');
  tree.onFrameDetached('OOPIF', 'swap');
  tree.adoptCrossProcess('OOPIF', 'MAIN', child);
  assert.equal(tree.list().map((f) => f.id), ['MAIN', 'F1', 'F1a', 'OOPIF']);
  assert.ok(tree.get('OOPIF')!.crossProcess);
  assert.is(tree.get('OOPIF')!.session, child);
  tree.onFrameDetached('F1', 'remove');
  assert.equal(tree.list().map((f) => f.id), ['MAIN', 'OOPIF']);
  tree.dropSession(child);
  assert.equal(tree.list().map((f) => f.id), ['MAIN']);
});

s("a frame's new document drops the old document's iframes (Chromium may send no frameDetached)", async () => {
  const { page } = await sessions();
  const tree = new FrameTree();
  tree.loadTree(page, {
    frame: frame('MAIN', undefined, 'http://a/'),
    childFrames: [{ frame: frame('F1', 'MAIN', 'http://a/1'), childFrames: [{ frame: frame('F1a', 'F1', 'http://a/1a') }] }, {
      frame: frame('F2', 'MAIN', 'http://a/2'),
    }],
  }, false);
  tree.onFrameNavigated(page, frame('F1', 'MAIN', 'http://a/1-next', 'L2'));
  assert.equal(tree.list().map((f) => f.id), ['MAIN', 'F1', 'F2'], "F1's old child is gone, its siblings stay");
  tree.onFrameNavigated(page, frame('MAIN', undefined, 'http://a/next', 'L3'));
  assert.equal(tree.list().map((f) => f.id), ['MAIN']);
  tree.onFrameAttached(page, 'NEW', 'MAIN');
  assert.equal(tree.list().map((f) => f.id), ['MAIN', 'NEW'], 'the new document attaches its own');
});

s.run();
