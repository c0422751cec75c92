// EventLog: numbering, stamping, retention for replay (and what was evicted), synchronous live
// delivery, close.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { DEFAULT_RETAINED_EVENTS, EventLog } from '../../src/events/event-log.ts';
import { EVENT_KINDS, isEventKind, type SessionEvent } from '../../src/events/types.ts';

const s = suite('EventLog');

const seqs = (events: SessionEvent[]) => events.map((e) => e.seq);

s('seq starts at 1 and grows by one; time comes from the clock; session_id from the getter; absent ids stay absent', () => {
  let now = 1_000;
  let id = 'unset';
  const log = new EventLog({ sessionId: () => id, now: () => now });
  id = 's_1';
  const a = log.publish({ kind: 'console', data: { level: 'log', text: 'hi' } });
  now = 1_005;
  const b = log.publish({
    kind: 'navigation',
    target_id: 't1',
    frame_id: 'f1',
    data: { frame_id: 'f1', url: 'https://x.test/', same_document: false },
  });
  assert.equal(a, { seq: 1, kind: 'console', session_id: 's_1', time: 1_000, data: { level: 'log', text: 'hi' } });
  assert.not.ok('target_id' in a);
  assert.not.ok('frame_id' in a);
  assert.equal(b, {
    seq: 2,
    kind: 'navigation',
    session_id: 's_1',
    target_id: 't1',
    frame_id: 'f1',
    time: 1_005,
    data: { frame_id: 'f1', url: 'https://x.test/', same_document: false },
  });
  assert.is(log.lastSeq, 2);
  assert.is(new EventLog({ sessionId: 's_2' }).publish({ kind: 'crash', data: { scope: 'browser', hint: 'gone' } }).session_id, 's_2');
});

s('since(n) returns retained events after n and how many after n were already evicted', () => {
  const log = new EventLog({ sessionId: 's', retain: 3 });
  assert.equal(log.since(0), { events: [], evicted: 0 });
  for (let i = 0; i < 5; i++) log.publish({ kind: 'console', data: { level: 'log', text: `${i}` } });
  assert.is(log.firstRetainedSeq, 3);
  assert.is(log.retained, 3);
  assert.equal(seqs(log.since(0).events), [3, 4, 5]);
  assert.is(log.since(0).evicted, 2);
  assert.is(log.since(1).evicted, 1);
  assert.equal(seqs(log.since(2).events), [3, 4, 5]);
  assert.is(log.since(2).evicted, 0);
  assert.equal(seqs(log.since(4).events), [5]);
  assert.equal(log.since(5), { events: [], evicted: 0 });
  assert.equal(log.since(99), { events: [], evicted: 0 });
});

s('by default the last 1000 events are retained', () => {
  const log = new EventLog();
  for (let i = 0; i < DEFAULT_RETAINED_EVENTS + 5; i++) log.publish({ kind: 'console', data: { level: 'log', text: '' } });
  const { events, evicted } = log.since(0);
  assert.is(events.length, 1000);
  assert.is(events[0]!.seq, 6);
  assert.is(events.at(-1)!.seq, 1005);
  assert.is(evicted, 5);
  assert.throws(() => new EventLog({ retain: 0 }), /retain/);
});

s('live listeners get each event synchronously, in order, until disposed', () => {
  const log = new EventLog({ sessionId: 's' });
  const seen: number[] = [];
  const subscription = log.subscribe((event) => seen.push(event.seq));
  log.publish({ kind: 'popup', data: { target_id: 't2', opener_id: 't1', url: 'about:blank' } });
  assert.equal(seen, [1]);
  log.publish({ kind: 'tab_closed', data: { target_id: 't2' } });
  assert.equal(seen, [1, 2]);
  assert.is(log.listenerCount, 1);
  subscription.dispose();
  log.publish({ kind: 'tab_closed', data: { target_id: 't2' } });
  assert.equal(seen, [1, 2]);
  assert.is(log.listenerCount, 0);
});

s('close tells close listeners once, drops live listeners, keeps retained events readable', async () => {
  const log = new EventLog({ sessionId: 's' });
  log.publish({ kind: 'session_closed', data: { reason: 'closed_by_client' } });
  let closes = 0;
  const seen: number[] = [];
  log.onClose(() => closes++);
  log.subscribe((event) => seen.push(event.seq));
  log.close();
  log.close();
  assert.is(closes, 1);
  assert.ok(log.closed);
  assert.is(log.listenerCount, 0);
  const late = log.publish({ kind: 'console', data: { level: 'log', text: 'late' } });
  assert.is(late.seq, 2);
  assert.equal(seen, []);
  assert.equal(seqs(log.since(0).events), [1]);
  // Asking after the fact still gets told (on a microtask), and can cancel.
  const told = new Promise<void>((resolve) => log.onClose(resolve));
  let cancelledCalled = false;
  log.onClose(() => (cancelledCalled = true)).dispose();
  await told;
  assert.not.ok(cancelledCalled);
});

s('waitFor ends on the first wanted event, on close, on its timeout or on abort, and leaves no listener behind', async () => {
  const log = new EventLog({ sessionId: 's_1' });
  let ended = false;
  const waiting = log.waitFor((event) => event.kind === 'dialog', { timeoutMs: 60_000 }).then(() => (ended = true));
  log.publish({ kind: 'console', data: { level: 'log', text: 'not this one' } });
  await Promise.resolve();
  assert.not.ok(ended, 'an event it does not want does not end it');
  log.publish({ kind: 'dialog', data: { type: 'alert', message: 'hi', url: 'about:blank' } });
  await waiting;
  assert.is(log.listenerCount, 0);

  const started = Date.now();
  await log.waitFor(() => true, { timeoutMs: 30 });
  assert.ok(Date.now() - started >= 25);
  const controller = new AbortController();
  const aborted = log.waitFor(() => true, { timeoutMs: 60_000, signal: controller.signal });
  controller.abort();
  await aborted;
  const closing = log.waitFor(() => true, { timeoutMs: 60_000 });
  log.close();
  await closing;
  assert.is(log.listenerCount, 0);
  // Already closed: at once.
  await log.waitFor(() => true, { timeoutMs: 60_000 });
});

s('EVENT_KINDS lists the nine kinds of PROTOCOL.md §9, then act and network (added by the implementation and §15)', () => {
  assert.equal([...EVENT_KINDS], [
    'dialog',
    'file_chooser',
    'download',
    'popup',
    'tab_closed',
    'navigation',
    'console',
    'crash',
    'session_closed',
    'act',
    'network',
  ]);
  assert.ok(isEventKind('dialog'));
  assert.not.ok(isEventKind('toString'));
});

s.run();
