// SubscriptionHub and the events.* methods: replay of retained events then live ones without gaps
// or duplicates (also when an event is published during the replay), kinds filters,
// unsubscribe, disposal on connection close and at session end, the per-connection limit.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { ServerError } from '../../src/errors.ts';
import { EventLog } from '../../src/events/event-log.ts';
import { eventPriority, type EventSource, SubscriptionHub, type SubscriptionHubOptions } from '../../src/events/subscriptions.ts';
import type { EventData, EventInit, EventKind, SessionEvent } from '../../src/events/types.ts';
import type { CallContext } from '../../src/rpc/context.ts';
import { eventMethods } from '../../src/rpc/methods/events.ts';
import type { SessionRegistry } from '../../src/sessions/registry.ts';
import { FakeConnection } from '../helpers/fake-connection.ts';

function fakeSession(id = 's_1', retain?: number): EventSource {
  return { id, events: new EventLog({ sessionId: id, now: () => 42, ...(retain ? { retain } : {}) }) };
}

/** A hub whose subscriptions start when the test says so (`starts.run()`). */
function manualHub(options: SubscriptionHubOptions = {}) {
  const queue: Array<() => void> = [];
  const hub = new SubscriptionHub({ schedule: (start) => queue.push(start), outbox: { pollIntervalMs: 1 }, ...options });
  return { hub, runStarts: () => queue.splice(0).forEach((start) => start()) };
}

/** A valid event of each kind, for tests that care only about the kind. */
const SAMPLE: { [K in EventKind]: Extract<EventInit, { kind: K }> } = {
  dialog: { kind: 'dialog', data: { type: 'alert', message: 'hi', url: 'about:blank' } },
  file_chooser: { kind: 'file_chooser', data: { mode: 'select_single' } },
  download: {
    kind: 'download',
    data: { guid: 'g1', url: 'http://127.0.0.1/f.txt', suggested_filename: 'f.txt', state: 'started', received_bytes: 0, total_bytes: 0 },
  },
  popup: { kind: 'popup', data: { target_id: 't2', opener_id: 't1', url: 'about:blank' } },
  tab_closed: { kind: 'tab_closed', data: { target_id: 't2' } },
  navigation: { kind: 'navigation', data: { frame_id: 'f1', url: 'about:blank', same_document: false } },
  console: { kind: 'console', data: { level: 'log', text: 'x' } },
  crash: { kind: 'crash', data: { scope: 'renderer', hint: 'reload' } },
  session_closed: { kind: 'session_closed', data: { reason: 'closed_by_client' } },
  act: {
    kind: 'act',
    data: {
      actions: ['click'],
      state_id: 's1',
      status: 'completed',
      execution: 'completed',
      observation: 'captured',
      postcondition: 'not_requested',
      completed: [0],
    },
  },
  network: {
    kind: 'network',
    data: { seq: 1, method: 'GET', url: 'http://127.0.0.1/', resource_type: 'document', state: 'finished', status: 200, time: 42 },
  },
};

const download = (state: EventData['download']['state']): EventInit => ({ kind: 'download', data: { ...SAMPLE.download.data, state } });
const sessionClosed = (reason: string): EventInit => ({ kind: 'session_closed', data: { reason } });

function publish(source: EventSource, init: EventInit = SAMPLE.console): SessionEvent {
  return source.events.publish(init);
}

const seqs = (connection: FakeConnection) => connection.sent.map((p) => p['seq']);

const s = suite('SubscriptionHub');

s('notification params have exactly the wire shape; optional ids only when set; the id looks like sub_…', async () => {
  const hub = new SubscriptionHub();
  const connection = new FakeConnection();
  const session = fakeSession();
  const { subscription_id } = hub.subscribe(connection, session);
  assert.match(subscription_id, /^sub_[0-9a-f]{18}$/);
  session.events.publish({ kind: 'dialog', target_id: 't1', frame_id: 'f1', data: { type: 'alert', message: 'hi', url: 'about:blank' } });
  session.events.publish({ kind: 'console', data: { level: 'log', text: 'x' } });
  // By default nothing is sent in the subscribing call itself (its reply goes first).
  assert.equal(connection.sent, []);
  await connection.delivered(2);
  assert.equal(connection.methods, ['event', 'event']);
  assert.equal(connection.sent[0], {
    subscription_id,
    seq: 1,
    kind: 'dialog',
    session_id: 's_1',
    target_id: 't1',
    frame_id: 'f1',
    time: 42,
    data: { type: 'alert', message: 'hi', url: 'about:blank' },
  });
  assert.equal(Object.keys(connection.sent[1]!), ['subscription_id', 'seq', 'kind', 'session_id', 'time', 'data']);
  connection.close();
});

s('the subscribe result carries last_seq: the seq the live part starts after, so a client can resume from it', () => {
  const { hub, runStarts } = manualHub();
  const connection = new FakeConnection();
  const session = fakeSession();
  assert.equal(hub.subscribe(connection, session).last_seq, 0);
  for (let i = 0; i < 3; i++) publish(session);
  const result = hub.subscribe(connection, session);
  assert.equal(result.last_seq, 3);
  publish(session);
  runStarts();
  // A resubscription with after_seq: last_seq replays exactly what came after the first subscribe.
  const later = new FakeConnection();
  hub.subscribe(later, session, { afterSeq: result.last_seq });
  runStarts();
  assert.equal(seqs(later), [4]);
  connection.close();
  later.close();
});

s('after_seq replays the retained events after it, then live ones, without gaps or duplicates', () => {
  const { hub, runStarts } = manualHub();
  const connection = new FakeConnection();
  const session = fakeSession();
  for (let i = 0; i < 5; i++) publish(session);
  hub.subscribe(connection, session, { afterSeq: 2 });
  publish(session); // 6: after subscribe, before the start
  runStarts();
  assert.equal(seqs(connection), [3, 4, 5, 6]);
  publish(session);
  assert.equal(seqs(connection), [3, 4, 5, 6, 7]);
  connection.close();
});

s('without after_seq only live events come; after_seq 0 replays all retained ones', () => {
  const { hub, runStarts } = manualHub();
  const connection = new FakeConnection();
  const session = fakeSession('s_1', 3);
  for (let i = 0; i < 5; i++) publish(session);
  const live = hub.subscribe(connection, session).subscription_id;
  const all = hub.subscribe(connection, session, { afterSeq: 0 }).subscription_id;
  runStarts();
  publish(session);
  const of = (id: string) => connection.sent.filter((p) => p['subscription_id'] === id).map((p) => p['seq']);
  assert.equal(of(live), [6]);
  assert.equal(of(all), [3, 4, 5, 6]);
  connection.close();
});

s('an event published during the replay (re-entrantly) comes after it, exactly once, in seq order', () => {
  const { hub, runStarts } = manualHub();
  const connection = new FakeConnection();
  const session = fakeSession();
  for (let i = 0; i < 4; i++) publish(session);
  hub.subscribe(connection, session, { afterSeq: 0 });
  publish(session); // 5: buffered before the start
  let published = false;
  connection.onNotify = (params) => {
    if (params['seq'] === 2 && !published) {
      published = true;
      publish(session); // 6, while 3, 4 and 5 are still to be replayed
    }
  };
  runStarts();
  publish(session); // 7: live
  assert.equal(seqs(connection), [1, 2, 3, 4, 5, 6, 7]);
  connection.close();
});

s('many events published between subscribe and start are all delivered even past the retention', () => {
  const { hub, runStarts } = manualHub();
  const connection = new FakeConnection();
  const session = fakeSession('s_1', 10);
  for (let i = 0; i < 5; i++) publish(session);
  hub.subscribe(connection, session, { afterSeq: 1 });
  for (let i = 0; i < 30; i++) publish(session); // evicts everything the snapshot holds
  runStarts();
  assert.equal(seqs(connection), Array.from({ length: 34 }, (_, i) => i + 2));
  connection.close();
});

s('kinds filter what is delivered, in replay and live', () => {
  const { hub, runStarts } = manualHub();
  const connection = new FakeConnection();
  const session = fakeSession();
  publish(session, SAMPLE.console);
  publish(session, SAMPLE.dialog);
  hub.subscribe(connection, session, { kinds: ['dialog', 'download'], afterSeq: 0 });
  runStarts();
  publish(session, download('started'));
  publish(session, SAMPLE.navigation);
  publish(session, SAMPLE.popup);
  publish(session, SAMPLE.dialog);
  assert.equal(connection.sent.map((p) => [p['seq'], p['kind']]), [[2, 'dialog'], [3, 'download'], [6, 'dialog']]);
  connection.close();
});

s('unsubscribe stops delivery and discards its queued events; unknown or foreign ids are invalid_params', () => {
  const { hub, runStarts } = manualHub();
  const connection = new FakeConnection();
  const other = new FakeConnection('c2');
  const session = fakeSession();
  const a = hub.subscribe(connection, session).subscription_id;
  const b = hub.subscribe(connection, session).subscription_id;
  runStarts();
  connection.buffered = 10 * 1024 * 1024; // stuck: events queue up
  publish(session);
  assert.is(hub.stats.queued, 2);
  // Another connection cannot remove it, and learns nothing about it.
  const foreign = (() => {
    try {
      hub.unsubscribe(other, a);
    } catch (error) {
      return error;
    }
  })();
  assert.ok(foreign instanceof ServerError && foreign.type === 'invalid_params', String(foreign));
  hub.unsubscribe(connection, a);
  assert.equal(hub.subscriptionsOf(connection), [b]);
  assert.is(hub.stats.queued, 1);
  assert.is(hub.stats.droppedTotal, 0);
  publish(session);
  assert.throws(
    () => hub.unsubscribe(connection, a),
    (error: unknown) => error instanceof ServerError && error.type === 'invalid_params' && /no subscription/.test(error.message),
  );
  connection.buffered = 0;
  publish(session);
  assert.equal(connection.sent.map((p) => [p['subscription_id'], p['seq']]), [[b, 1], [b, 2], [b, 3]]);
  connection.close();
});

s('closing the connection disposes its subscriptions and outbox (and only its own)', () => {
  const { hub, runStarts } = manualHub();
  const connection = new FakeConnection();
  const other = new FakeConnection('c2');
  const session = fakeSession();
  hub.subscribe(connection, session);
  hub.subscribe(connection, session, { kinds: ['crash'] });
  hub.subscribe(other, session);
  runStarts();
  assert.is(session.events.listenerCount, 3);
  assert.is(hub.stats.connections, 2);
  connection.close();
  assert.is(session.events.listenerCount, 1);
  assert.equal(hub.subscriptionsOf(connection), []);
  assert.equal(hub.stats.connections, 1);
  assert.is(hub.stats.subscriptions, 1);
  publish(session);
  assert.equal(connection.sent, []);
  assert.is(other.sent.length, 1);
  // A subscription made but not started yet goes too, and never starts.
  const third = new FakeConnection('c3');
  hub.subscribe(third, session, { afterSeq: 0 });
  third.close();
  runStarts();
  assert.equal(third.sent, []);
  assert.throws(
    () => hub.subscribe(third, session),
    (error: unknown) => error instanceof ServerError && error.type === 'operation_cancelled',
  );
  other.close();
  assert.is(session.events.listenerCount, 0);
  assert.equal(hub.stats, { connections: 0, subscriptions: 0, queued: 0, queuedBytes: 0, droppedTotal: 0, deliveredTotal: 1 });
});

s('at most 32 subscriptions per connection: the 33rd is invalid_request with data.limit', () => {
  const { hub, runStarts } = manualHub();
  const connection = new FakeConnection();
  const session = fakeSession();
  const ids = Array.from({ length: 32 }, () => hub.subscribe(connection, session).subscription_id);
  assert.is(new Set(ids).size, 32);
  let error: unknown;
  try {
    hub.subscribe(connection, session);
  } catch (caught) {
    error = caught;
  }
  assert.ok(error instanceof ServerError);
  assert.is(error.type, 'invalid_request');
  assert.equal(error.details, { limit: 'subscriptions_per_connection', max: 32 });
  // Other connections have their own allowance; freeing one makes room again.
  const other = new FakeConnection('c2');
  hub.subscribe(other, session);
  hub.unsubscribe(connection, ids[0]!);
  hub.subscribe(connection, session);
  assert.is(hub.stats.subscriptions, 33);
  runStarts();
  connection.close();
  other.close();
});

s('session_closed is delivered, then the subscription ends; under pressure it survives the drops', async () => {
  const { hub, runStarts } = manualHub({ outbox: { pollIntervalMs: 1, highWaterMark: 10, maxQueuedItems: 3 } });
  const connection = new FakeConnection();
  const session = fakeSession();
  hub.subscribe(connection, session);
  runStarts();
  connection.buffered = 10;
  for (let i = 0; i < 10; i++) publish(session);
  publish(session, sessionClosed('closed_by_client'));
  assert.equal(hub.subscriptionsOf(connection), []);
  assert.is(session.events.listenerCount, 0);
  publish(session); // nobody listens any more
  connection.buffered = 0;
  await connection.delivered(3);
  assert.equal(seqs(connection), [9, 10, 11]);
  assert.is(connection.sent[0]!['dropped'], 8);
  assert.is(connection.sent.at(-1)!['kind'], 'session_closed');
  connection.close();
});

s('a log closed before the subscription started: what was captured is delivered, then it ends', () => {
  const { hub, runStarts } = manualHub();
  const connection = new FakeConnection();
  const session = fakeSession();
  publish(session);
  hub.subscribe(connection, session, { afterSeq: 0 });
  publish(session, sessionClosed('idle_timeout'));
  session.events.close();
  runStarts();
  assert.equal(connection.sent.map((p) => p['kind']), ['console', 'session_closed']);
  assert.equal(hub.subscriptionsOf(connection), []);
  // Closing a live subscription's log ends it too; subscribing to a closed one is refused.
  const second = fakeSession('s_2');
  hub.subscribe(connection, second);
  runStarts();
  second.events.close();
  assert.equal(hub.subscriptionsOf(connection), []);
  assert.throws(
    () => hub.subscribe(connection, second),
    (error: unknown) => error instanceof ServerError && error.type === 'session_not_found',
  );
  connection.close();
});

s('priorities: dialogs, file choosers, crash, session_closed and final download states are kept', () => {
  const at = (init: EventInit) => eventPriority(new EventLog({ sessionId: 's' }).publish(init));
  assert.is(at(SAMPLE.dialog), 'keep');
  assert.is(at(SAMPLE.file_chooser), 'keep');
  assert.is(at(SAMPLE.crash), 'keep');
  assert.is(at(SAMPLE.session_closed), 'keep');
  assert.is(at(download('completed')), 'keep');
  assert.is(at(download('canceled')), 'keep');
  assert.is(at(download('in_progress')), 'droppable');
  assert.is(at(download('started')), 'droppable');
  for (const kind of ['popup', 'tab_closed', 'navigation', 'console'] as const) assert.is(at(SAMPLE[kind]), 'droppable');
});

s('hub.close ends everything', () => {
  const { hub, runStarts } = manualHub();
  const connection = new FakeConnection();
  const session = fakeSession();
  hub.subscribe(connection, session);
  runStarts();
  hub.close();
  assert.is(session.events.listenerCount, 0);
  assert.is(hub.stats.connections, 0);
  publish(session);
  assert.equal(connection.sent, []);
});

const m = suite('events.* methods');

function methodsFor(session: EventSource & { clients: Set<string>; lastUsedAt: number }, hub: SubscriptionHub) {
  const registry = { resolve: async () => session } as unknown as SessionRegistry;
  const [subscribe, unsubscribe] = eventMethods(registry, hub);
  return { subscribe: subscribe!, unsubscribe: unsubscribe! };
}

m('params are strict: kinds non-empty, known and unique; after_seq an integer >= 0', () => {
  const { subscribe, unsubscribe } = methodsFor({ ...fakeSession(), clients: new Set(), lastUsedAt: 0 }, new SubscriptionHub());
  const ok = (params: unknown) => subscribe.params.safeParse(params).success;
  assert.ok(ok({}));
  assert.ok(ok({ session_id: 's_1', kinds: ['dialog', 'download'], after_seq: 0 }));
  assert.not.ok(ok({ kinds: [] }));
  assert.not.ok(ok({ kinds: ['dialog', 'dialog'] }));
  assert.not.ok(ok({ kinds: ['nope'] }));
  assert.not.ok(ok({ after_seq: -1 }));
  assert.not.ok(ok({ after_seq: 1.5 }));
  assert.not.ok(ok({ extra: true }));
  assert.ok(unsubscribe.params.safeParse({ subscription_id: 'sub_1' }).success);
  assert.not.ok(unsubscribe.params.safeParse({}).success);
  assert.not.ok(unsubscribe.params.safeParse({ subscription_id: 'sub_1', x: 1 }).success);
});

m('subscribe bypasses the session queue; unsubscribe answers {unsubscribed: true}', async () => {
  const hub = new SubscriptionHub({ schedule: (start) => start() });
  const session = { ...fakeSession(), clients: new Set<string>(), lastUsedAt: 0 };
  const { subscribe, unsubscribe } = methodsFor(session, hub);
  const connection = new FakeConnection();
  const call = { connection, principal: connection.principal } as unknown as CallContext;
  publish(session, SAMPLE.dialog);
  // The fake session has no queue: going through it would throw.
  const result = (await subscribe.handler({ kinds: ['dialog'], after_seq: 0 }, call)) as { subscription_id: string };
  assert.match(result.subscription_id, /^sub_/);
  assert.ok(session.clients.has('c1'));
  assert.equal(seqs(connection), [1]);
  assert.equal(await unsubscribe.handler({ subscription_id: result.subscription_id }, call), { unsubscribed: true });
  await unsubscribe.handler({ subscription_id: result.subscription_id }, call).then(
    () => assert.unreachable('a second unsubscribe must fail'),
    (error: unknown) => assert.ok(error instanceof ServerError && error.type === 'invalid_params'),
  );
  connection.close();
});

s.run();
m.run();
