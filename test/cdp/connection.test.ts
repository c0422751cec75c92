// Connection and CdpSession against a scripted peer: registration before send, routing by
// sessionId, child sessions, deadlines, and failing every pending call when things go away.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { Connection } from '../../src/cdp/connection.ts';
import { CdpError } from '../../src/cdp/errors.ts';
import { Deadline } from '../../src/util/deadline.ts';
import { attachEvent, FakeCdpPeer, until } from '../helpers/fake-cdp.ts';

const s = suite('cdp Connection');

s('a reply delivered synchronously inside send() still resolves the call (registered before send)', async () => {
  const peer = new FakeCdpPeer();
  peer.answer('Browser.getVersion', () => ({ result: { product: 'Fake/1', protocolVersion: '1.3' } }));
  const connection = new Connection(peer);
  const version = await connection.root.send('Browser.getVersion');
  assert.is(version.product, 'Fake/1');
  assert.is(connection.pendingCount, 0);
});

s('ids start at 1 and are unique; a reply with id 0 or unknown id is ignored', async () => {
  const peer = new FakeCdpPeer();
  const connection = new Connection(peer);
  const a = connection.root.send('Browser.getVersion');
  const b = connection.root.send('Target.getTargets');
  assert.equal(peer.sent.map((m) => m.id), [1, 2]);
  peer.deliver({ id: 0, result: {} });
  peer.deliver({ id: 99, result: {} });
  peer.reply(2, { targetInfos: [] });
  peer.reply(1, { product: 'x' });
  assert.equal((await b).targetInfos, []);
  assert.is((await a).product, 'x');
});

s('a CDP error rejects with kind protocol and the code; -32001 counts as target gone', async () => {
  const peer = new FakeCdpPeer();
  peer.answer('DOM.describeNode', () => ({ error: { code: -32000, message: 'No node with given id found' } }));
  peer.answer('Page.enable', () => ({ error: { code: -32001, message: 'Session with given id not found.' } }));
  const connection = new Connection(peer);
  const error = await connection.root.send('DOM.describeNode', { backendNodeId: 1 }).catch((e: unknown) => e);
  assert.instance(error, CdpError);
  assert.is((error as CdpError).kind, 'protocol');
  assert.is((error as CdpError).code, -32000);
  assert.not.ok((error as CdpError).isTargetGone);
  const gone = (await connection.root.send('Page.enable').catch((e: unknown) => e)) as CdpError;
  assert.ok(gone.isTargetGone);
});

s('when the wire closes every pending call fails at once with the reason, and later calls fail fast', async () => {
  const peer = new FakeCdpPeer();
  const connection = new Connection(peer);
  const pending = [connection.root.send('Browser.getVersion'), connection.root.send('Target.getTargets')];
  peer.drop('browser exited (code 9)');
  for (const call of pending) {
    const error = (await call.catch((e: unknown) => e)) as CdpError;
    assert.is(error.kind, 'closed');
    assert.match(error.message, /browser exited \(code 9\)/);
  }
  assert.is(await connection.closed, 'browser exited (code 9)');
  const late = (await connection.root.send('Browser.getVersion').catch((e: unknown) => e)) as CdpError;
  assert.is(late.kind, 'closed');
  assert.is(connection.pendingCount, 0);
});

s('a call with no answer fails with kind timeout at its deadline', async () => {
  const peer = new FakeCdpPeer();
  const connection = new Connection(peer, { defaultTimeoutMs: 5_000 });
  const error = (await connection.root.sendWith({ timeoutMs: 20 }, 'Browser.getVersion').catch((e: unknown) => e)) as CdpError;
  assert.is(error.kind, 'timeout');
  assert.is(connection.pendingCount, 0);
});

s('an aborted signal ends the call', async () => {
  const peer = new FakeCdpPeer();
  const connection = new Connection(peer);
  const controller = new AbortController();
  const call = connection.root.sendWith({ signal: controller.signal }, 'Browser.getVersion');
  controller.abort();
  const error = (await call.catch((e: unknown) => e)) as CdpError;
  assert.is(error.kind, 'closed');
  assert.is(connection.pendingCount, 0);
});

s('hundreds of calls on one signal: answered ones are done with it, one abort ends the rest, one listener', async () => {
  const peer = new FakeCdpPeer();
  const connection = new Connection(peer);
  const controller = new AbortController();
  const warnings: string[] = [];
  const onWarning = (warning: Error) => warnings.push(warning.name);
  process.on('warning', onWarning);
  try {
    const calls = Array.from(
      { length: 300 },
      () => connection.root.sendWith({ signal: controller.signal }, 'Browser.getVersion').catch((e: unknown) => e),
    );
    // Answer the first hundred, and let them be routed before the abort.
    peer.sent.slice(0, 100).forEach((message, i) => peer.reply(message.id, { product: `answer ${i + 1}` }));
    await until(() => connection.pendingCount === 200);
    controller.abort();
    const outcomes = await Promise.all(calls);
    assert.equal(
      outcomes.slice(0, 100).map((o) => (o as { product: string }).product),
      Array.from({ length: 100 }, (_, i) => `answer ${i + 1}`),
    );
    assert.ok(outcomes.slice(100).every((o) => o instanceof CdpError && o.kind === 'closed'));
    assert.is(connection.pendingCount, 0);
    await new Promise((resolve) => setImmediate(resolve));
    assert.equal(warnings, [], 'no MaxListenersExceededWarning');
  } finally {
    process.off('warning', onWarning);
  }
});

s('attachedToTarget creates the child session before its messages are routed; events route by sessionId', async () => {
  const peer = new FakeCdpPeer();
  const connection = new Connection(peer);
  const seen: string[] = [];
  let lastDelivered: () => void = () => {};
  const delivered = new Promise<void>((resolve) => (lastDelivered = resolve));
  connection.onAttached(({ session, parent }) => {
    seen.push(`attached ${session.id} under '${parent.id}'`);
    session.on('Page.frameNavigated', (e) => {
      seen.push(`navigated ${e.frame.id} on ${session.id}`);
      if (e.frame.id === 'F3') lastDelivered();
    });
  });
  peer.emit('Target.attachedToTarget', attachEvent('S1', 'T1'));
  peer.emit('Page.frameNavigated', { frame: { id: 'F1', loaderId: 'L', url: 'about:blank' }, type: 'Navigation' }, 'S1');
  peer.emit('Page.frameNavigated', { frame: { id: 'F2', loaderId: 'L', url: 'about:blank' }, type: 'Navigation' }, 'S-unknown');
  // Messages are handled in order: once F3 arrived, F2 (for no known session) was handled too.
  peer.emit('Page.frameNavigated', { frame: { id: 'F3', loaderId: 'L', url: 'about:blank' }, type: 'Navigation' }, 'S1');
  await delivered;
  assert.equal(seen, ["attached S1 under ''", 'navigated F1 on S1', 'navigated F3 on S1']);
  const child = connection.session('S1')!;
  const call = child.send('Page.enable');
  assert.is(peer.lastSent('Page.enable')?.sessionId, 'S1');
  peer.reply(peer.lastSent('Page.enable')!.id, {}, 'S1');
  await call;
});

s("detachedFromTarget fails the session's pending calls and leaves others alone", async () => {
  const peer = new FakeCdpPeer();
  const connection = new Connection(peer);
  peer.emit('Target.attachedToTarget', attachEvent('S1', 'T1'));
  await until(() => connection.session('S1') !== undefined);
  const child = connection.session('S1')!;
  const detached = new Promise<string>((resolve) => child.onDetached(resolve));
  const childCall = child.send('Page.getFrameTree');
  const rootCall = connection.root.send('Browser.getVersion');
  peer.emit('Target.detachedFromTarget', { sessionId: 'S1', targetId: 'T1' });
  const error = (await childCall.catch((e: unknown) => e)) as CdpError;
  assert.is(error.kind, 'closed');
  assert.ok(error.isTargetGone);
  assert.is(await detached, 'target detached');
  assert.is(child.state, 'detached');
  assert.is(connection.session('S1'), undefined);
  assert.is(connection.pendingCount, 1, 'the root call is still pending');
  peer.reply(peer.lastSent('Browser.getVersion')!.id, { product: 'ok' });
  assert.is((await rootCall).product, 'ok');
  const late = (await child.send('Page.enable').catch((e: unknown) => e)) as CdpError;
  assert.is(late.kind, 'closed');
});

s('one inbound message per task: a continuation after await runs before the next message is routed', async () => {
  const peer = new FakeCdpPeer();
  const connection = new Connection(peer);
  const order: string[] = [];
  connection.root.on('Target.targetCreated', () => order.push('event'));
  const call = connection.root.send('Target.getTargets').then(() => order.push('continuation'));
  // The reply and an event arrive in one chunk, as they do on a pipe.
  peer.reply(1, { targetInfos: [] });
  peer.emit('Target.targetCreated', { targetInfo: attachEvent('x', 'T9').targetInfo });
  await call;
  await until(() => order.length === 2);
  assert.equal(order, ['continuation', 'event']);
});

s('session.once resolves on a matching event and rejects when the session detaches', async () => {
  const peer = new FakeCdpPeer();
  const connection = new Connection(peer);
  peer.emit('Target.attachedToTarget', attachEvent('S1', 'T1'));
  await until(() => connection.session('S1') !== undefined);
  const child = connection.session('S1')!;
  const dcl = child.once('Page.lifecycleEvent', new Deadline(1000), (e) => e.name === 'DOMContentLoaded');
  peer.emit('Page.lifecycleEvent', { frameId: 'F', loaderId: 'L', name: 'init', timestamp: 1 }, 'S1');
  peer.emit('Page.lifecycleEvent', { frameId: 'F', loaderId: 'L', name: 'DOMContentLoaded', timestamp: 2 }, 'S1');
  assert.is((await dcl).timestamp, 2);
  assert.is(child.listenerCount(), 0, 'once releases its listeners');
  const never = child.once('Page.loadEventFired', new Deadline(1000));
  peer.emit('Target.detachedFromTarget', { sessionId: 'S1', targetId: 'T1' });
  const error = (await never.catch((e: unknown) => e)) as CdpError;
  assert.is(error.kind, 'closed');
});

s('a non-JSON message from the browser closes the connection', async () => {
  const peer = new FakeCdpPeer();
  const connection = new Connection(peer);
  const call = connection.root.send('Browser.getVersion');
  peer.onmessage?.('{not json');
  const error = (await call.catch((e: unknown) => e)) as CdpError;
  assert.is(error.kind, 'closed');
  assert.match(await connection.closed, /not JSON/);
});

s.run();
