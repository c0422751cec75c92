// Outbox against a fake connection whose bufferedAmount the test sets: write-through under the
// watermark, holding above it, draining when it drops, drop order (droppable before keep), the
// `dropped` count on the next delivered event, hard caps and bounded memory with a stuck socket.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { Outbox, type OutboxOptions, type OutboxPriority } from '../../src/events/outbox.ts';
import { FakeConnection } from '../helpers/fake-connection.ts';

const MiB = 1024 * 1024;
const FAST: OutboxOptions = { pollIntervalMs: 1 };
const event = (seq: number, extra: Record<string, unknown> = {}) => ({
  method: 'event',
  params: { subscription_id: 'sub_x', seq, kind: 'console', session_id: 's', time: 0, data: { text: `e${seq}` }, ...extra },
});
const seqs = (connection: FakeConnection) => connection.sent.map((p) => p['seq']);

const s = suite('Outbox');

s('under the watermark: written through at once, nothing queued, no timer', () => {
  const connection = new FakeConnection();
  const outbox = new Outbox(connection, FAST);
  connection.buffered = MiB - 1;
  assert.ok(outbox.enqueue(event(1), 'droppable'));
  assert.ok(outbox.enqueue(event(2), 'keep'));
  assert.equal(seqs(connection), [1, 2]);
  assert.equal(connection.methods, ['event', 'event']);
  assert.is(outbox.queued, 0);
  assert.not.ok(outbox.polling);
  assert.is(outbox.deliveredTotal, 2);
  assert.not.ok('dropped' in connection.sent[0]!);
});

s('at or above the watermark: held in order; drained by the poll once the buffer drops; the timer stops when empty', async () => {
  const connection = new FakeConnection();
  const outbox = new Outbox(connection, { ...FAST, highWaterMark: 100 });
  connection.buffered = 100;
  for (let seq = 1; seq <= 3; seq++) outbox.enqueue(event(seq), seq === 2 ? 'keep' : 'droppable');
  assert.equal(connection.sent, []);
  assert.is(outbox.queued, 3);
  assert.ok(outbox.queuedBytes > 0);
  assert.ok(outbox.polling);
  connection.buffered = 0;
  await connection.delivered(3);
  assert.equal(seqs(connection), [1, 2, 3]);
  assert.is(outbox.queued, 0);
  assert.is(outbox.queuedBytes, 0);
  assert.not.ok(outbox.polling);
  assert.is(outbox.droppedTotal, 0);
});

s('while something is queued a new event waits behind it even if the buffer has room (order kept)', async () => {
  const connection = new FakeConnection();
  const outbox = new Outbox(connection, { ...FAST, highWaterMark: 100 });
  connection.buffered = 500;
  outbox.enqueue(event(1), 'droppable');
  connection.buffered = 0;
  outbox.enqueue(event(2), 'droppable');
  assert.equal(seqs(connection), [1, 2]);
  assert.not.ok(outbox.polling);
});

s('drain stops again at the watermark when the socket fills up while draining', async () => {
  const connection = new FakeConnection();
  const outbox = new Outbox(connection, { ...FAST, highWaterMark: 100 });
  connection.buffered = 100;
  for (let seq = 1; seq <= 4; seq++) outbox.enqueue(event(seq), 'droppable');
  // Each write adds 60 bytes to the socket buffer (as ws's bufferedAmount would).
  const notify = connection.notify.bind(connection);
  connection.notify = (method, params) => {
    connection.buffered += 60;
    return notify(method, params);
  };
  connection.buffered = 0;
  await connection.delivered(2);
  assert.equal(seqs(connection), [1, 2]);
  assert.is(outbox.queued, 2);
  assert.ok(outbox.polling);
  connection.buffered = 0;
  await connection.delivered(4);
  assert.equal(seqs(connection), [1, 2, 3, 4]);
});

s(
  'past maxQueuedItems droppable events go oldest first; the next delivered one carries dropped: N, after seq; then it resets',
  async () => {
    const connection = new FakeConnection();
    const outbox = new Outbox(connection, { ...FAST, highWaterMark: 10, maxQueuedItems: 3 });
    connection.buffered = 10;
    for (let seq = 1; seq <= 5; seq++) outbox.enqueue(event(seq), 'droppable');
    assert.is(outbox.queued, 3);
    assert.is(outbox.droppedTotal, 2);
    assert.is(outbox.pendingDropped, 2);
    connection.buffered = 0;
    await connection.delivered(3);
    assert.equal(seqs(connection), [3, 4, 5]);
    assert.is(connection.sent[0]!['dropped'], 2);
    assert.equal(Object.keys(connection.sent[0]!), ['subscription_id', 'seq', 'dropped', 'kind', 'session_id', 'time', 'data']);
    assert.not.ok('dropped' in connection.sent[1]!);
    assert.not.ok('dropped' in connection.sent[2]!);
    assert.is(outbox.pendingDropped, 0);
    assert.is(outbox.droppedTotal, 2);
    outbox.enqueue(event(6), 'droppable');
    assert.not.ok('dropped' in connection.sent[3]!);
  },
);

s('keep events survive the soft bounds: droppable ones go first, delivery order is enqueue order', async () => {
  const connection = new FakeConnection();
  const outbox = new Outbox(connection, { ...FAST, highWaterMark: 10, maxQueuedItems: 3 });
  connection.buffered = 10;
  const plan: OutboxPriority[] = ['keep', 'droppable', 'droppable', 'keep', 'droppable', 'keep', 'keep'];
  plan.forEach((priority, i) => outbox.enqueue(event(i + 1, { priority }), priority));
  // Over the soft bound with no droppable left: the keeps stay (4 > 3 items).
  assert.is(outbox.queued, 4);
  assert.is(outbox.droppedTotal, 3);
  connection.buffered = 0;
  await connection.delivered(4);
  assert.equal(seqs(connection), [1, 4, 6, 7]);
  assert.is(connection.sent[0]!['dropped'], 3);
});

s('past the hard caps keep events are dropped too, oldest first, and counted', async () => {
  const connection = new FakeConnection();
  const outbox = new Outbox(connection, { ...FAST, highWaterMark: 10, maxQueuedItems: 2, hardMaxQueuedItems: 4 });
  connection.buffered = 10;
  for (let seq = 1; seq <= 6; seq++) outbox.enqueue(event(seq), 'keep');
  assert.is(outbox.queued, 4);
  assert.is(outbox.droppedTotal, 2);
  connection.buffered = 0;
  await connection.delivered(4);
  assert.equal(seqs(connection), [3, 4, 5, 6]);
  assert.is(connection.sent[0]!['dropped'], 2);
});

s('byte bounds: soft for droppable, hard for keep', () => {
  const connection = new FakeConnection();
  const size = JSON.stringify(event(1, { pad: 'x'.repeat(1000) }).params).length;
  const outbox = new Outbox(connection, {
    ...FAST,
    highWaterMark: 10,
    maxQueuedBytes: size * 2,
    hardMaxQueuedBytes: size * 3,
  });
  connection.buffered = 10;
  for (let seq = 1; seq <= 4; seq++) outbox.enqueue(event(seq, { pad: 'x'.repeat(1000) }), 'droppable');
  assert.is(outbox.queued, 2);
  assert.ok(outbox.queuedBytes <= size * 2);
  for (let seq = 5; seq <= 9; seq++) outbox.enqueue(event(seq, { pad: 'x'.repeat(1000) }), 'keep');
  assert.is(outbox.queued, 3);
  assert.ok(outbox.queuedBytes <= size * 3);
  assert.is(outbox.droppedTotal, 6);
  // Non-ASCII text is measured in UTF-8 bytes.
  const wide = new Outbox(new FakeConnection(), { highWaterMark: -1, maxQueuedBytes: 10_000 });
  wide.enqueue({ method: 'event', params: { t: 'é'.repeat(1000) } }, 'droppable');
  assert.is(wide.queuedBytes, JSON.stringify({ t: '' }).length + 2000);
  wide.enqueue({ method: 'event', params: { t: '😀'.repeat(1000) } }, 'droppable');
  assert.is(wide.queuedBytes, 2 * JSON.stringify({ t: '' }).length + 2000 + 4000);
  wide.close();
});

s('10,000 events into a stuck socket: memory stays bounded, keeps survive, the count is exact', async () => {
  const connection = new FakeConnection();
  const outbox = new Outbox(connection, FAST);
  connection.buffered = 64 * MiB;
  let maxQueued = 0;
  let maxBytes = 0;
  for (let seq = 1; seq <= 10_000; seq++) {
    outbox.enqueue(event(seq), seq % 10 === 0 ? 'keep' : 'droppable');
    maxQueued = Math.max(maxQueued, outbox.queued);
    maxBytes = Math.max(maxBytes, outbox.queuedBytes);
  }
  assert.equal(connection.sent, []);
  assert.ok(maxQueued <= 2000, `queued ${maxQueued}`);
  assert.ok(maxBytes <= 4 * MiB, `bytes ${maxBytes}`);
  assert.is(outbox.queued, 2000);
  assert.is(outbox.droppedTotal, 8000);
  connection.buffered = 0;
  await connection.delivered(2000);
  const delivered = seqs(connection) as number[];
  // All 1000 keeps (every 10th) plus the newest droppable ones, in seq order.
  assert.is(delivered.filter((seq) => seq % 10 === 0).length, 1000);
  assert.equal(delivered, [...delivered].sort((a, b) => a - b));
  assert.is(delivered.at(-1), 10_000);
  assert.is(connection.sent[0]!['dropped'], 8000);
  assert.is(outbox.queued, 0);
  assert.not.ok(outbox.polling);

  // All keep: bounded by the hard item cap (default 8000).
  const stuck = new FakeConnection();
  const keepOnly = new Outbox(stuck, FAST);
  stuck.buffered = 64 * MiB;
  for (let seq = 1; seq <= 10_000; seq++) keepOnly.enqueue(event(seq), 'keep');
  assert.is(keepOnly.queued, 8000);
  assert.ok(keepOnly.queuedBytes <= 16 * MiB);
  assert.is(keepOnly.droppedTotal, 2000);
  stuck.close();
  assert.is(keepOnly.queued, 0);
  assert.not.ok(keepOnly.polling);
});

s('connection close stops the poll, forgets the queue and refuses new events', () => {
  const connection = new FakeConnection();
  const outbox = new Outbox(connection, FAST);
  connection.buffered = 2 * MiB;
  outbox.enqueue(event(1), 'keep');
  assert.ok(outbox.polling);
  connection.close();
  assert.ok(outbox.closed);
  assert.not.ok(outbox.polling);
  assert.is(outbox.queued, 0);
  assert.is(outbox.queuedBytes, 0);
  assert.not.ok(outbox.enqueue(event(2), 'keep'));
  // Created on an already closed connection: closed from the start.
  assert.ok(new Outbox(connection).closed);
});

s('notify answering false (socket gone) closes the outbox', () => {
  const connection = new FakeConnection();
  const outbox = new Outbox(connection, FAST);
  connection.refuse = true;
  assert.not.ok(outbox.enqueue(event(1), 'keep'));
  assert.ok(outbox.closed);
  assert.is(outbox.deliveredTotal, 0);
});

s('discard removes queued notifications without counting them as dropped', async () => {
  const connection = new FakeConnection();
  const outbox = new Outbox(connection, { ...FAST, highWaterMark: 10 });
  connection.buffered = 10;
  outbox.enqueue(event(1, { subscription_id: 'a' }), 'keep');
  outbox.enqueue(event(2, { subscription_id: 'b' }), 'droppable');
  outbox.enqueue(event(3, { subscription_id: 'a' }), 'droppable');
  assert.is(outbox.discard((params) => params['subscription_id'] === 'a'), 2);
  assert.is(outbox.queued, 1);
  assert.is(outbox.droppedTotal, 0);
  assert.is(outbox.discard((params) => params['subscription_id'] === 'b'), 1);
  assert.not.ok(outbox.polling);
  assert.is(outbox.queuedBytes, 0);
});

s('an event that cannot be serialised is dropped, counted and reported; the rest flow on', async () => {
  const connection = new FakeConnection();
  const errors: unknown[] = [];
  const outbox = new Outbox(connection, { ...FAST, highWaterMark: 10, onError: (error) => errors.push(error) });
  connection.buffered = 10;
  outbox.enqueue(event(1, { data: { big: 1n } }), 'droppable');
  outbox.enqueue(event(2), 'droppable');
  assert.is(errors.length, 1);
  assert.is(outbox.queued, 1);
  connection.buffered = 0;
  await connection.delivered(1);
  assert.equal(seqs(connection), [2]);
  assert.is(connection.sent[0]!['dropped'], 1);
  // A notify that throws counts the same way.
  connection.notify = () => {
    throw new Error('socket exploded');
  };
  assert.ok(outbox.enqueue(event(3), 'keep'));
  assert.is(errors.length, 2);
  assert.is(outbox.pendingDropped, 1);
});

s.run();
