// screencast.start / screencast.stop against real Chromium (PROTOCOL.md §13): frames arrive as
// `screencast` events, stop ends them, nothing is captured while nobody watches, a password
// input is masked in a frame (pixels read back by decoding the JPEG in a Chromium tab), and a
// reader that stops reading makes the server skip frames instead of queueing them.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { connect } from '../../src/client/index.ts';
import type { TestClient } from '../helpers/client.ts';
import { until } from '../helpers/fake-cdp.ts';
import { evaluate, tabOf } from '../helpers/page.ts';
import type { TestServer } from '../helpers/pagewire.ts';
import { openTab, withSession } from '../helpers/session-suite.ts';
import type { ScreencastNotification } from '../helpers/wire.ts';

const s = suite('screencast');
let server: TestServer;
let client: TestClient;
let sessionId: string;

const ctx = withSession(s, 'screencast', (context) => ({ server, client, sessionId } = context));

const open = (path: string) => openTab(ctx, path);

function framesOf(source: TestClient, subscriptionId: string): ScreencastNotification[] {
  return source.notifications.flatMap((n) => {
    const params = n.params as ScreencastNotification;
    return n.method === 'event' && params.kind === 'screencast' && params.subscription_id === subscriptionId ? [params] : [];
  });
}

/** The first frame after `afterSeq`; a capture that stalls fails the test instead of hanging the run. */
async function nextFrame(source: TestClient, subscriptionId: string, afterSeq = 0): Promise<ScreencastNotification> {
  const n = await within(
    20_000,
    source.waitForNotification((n) => {
      const params = n.params as ScreencastNotification;
      return n.method === 'event' && params.kind === 'screencast' && params.subscription_id === subscriptionId && params.seq > afterSeq;
    }),
    `screencast frame after seq ${afterSeq}`,
  );
  return n.params as ScreencastNotification;
}

/** The promise's value, or a failure naming what did not come within `ms` (instead of a test that hangs). */
async function within<T>(ms: number, promise: Promise<T>, what: string): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const late = new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new Error(`no ${what} within ${ms} ms`)), ms)));
  try {
    return await Promise.race([promise, late]);
  } finally {
    clearTimeout(timer);
  }
}

/** Resolves after the page has painted `count` more animation frames (an event, not a sleep). */
function paints(targetId: string, count: number): Promise<unknown> {
  return evaluate(
    server,
    targetId,
    `new Promise((done) => { let n = ${count}; const step = () => (--n > 0 ? requestAnimationFrame(step) : done(true)); requestAnimationFrame(step); })`,
  );
}

s('frames arrive after start as screencast events; stop ends them and the capture', async () => {
  const targetId = await open('/live-chart.html');
  const started = await client.call('screencast.start', { session_id: sessionId, target_id: targetId, max_fps: 10 });
  assert.is(started.target_id, targetId);
  const first = await nextFrame(client, started.subscription_id);
  assert.is(first.seq, 1);
  assert.is(first.session_id, sessionId);
  assert.is(first.target_id, targetId);
  assert.is(first.data.mime, 'image/jpeg');
  assert.ok(first.data.width > 100 && first.data.height > 100, `a real image: ${first.data.width}x${first.data.height}`);
  assert.ok(atob(first.data.data.slice(0, 8)).startsWith('\xff\xd8'), 'JPEG bytes');
  // The page repaints every frame: more frames follow, paced by the acks.
  await nextFrame(client, started.subscription_id, 2);
  assert.is(server.server.screencasts.captures, 1);

  assert.equal(await client.call('screencast.stop', { session_id: sessionId, target_id: targetId }), { stopped: true });
  assert.is(server.server.screencasts.captures, 0, 'the capture ended with its last watcher');
  const count = framesOf(client, started.subscription_id).length;
  // Chromium is told to stop: no frame reaches the tab's CDP session while the page keeps painting,
  // past the one frame it may have had under way when the stop came (on a loaded machine its
  // encoding can outlast a few paints).
  await paints(targetId, 2);
  let cdpFrames = 0;
  const listening = tabOf(server, targetId).session.on('Page.screencastFrame', () => cdpFrames++);
  await paints(targetId, 20);
  const underWay = cdpFrames;
  await paints(targetId, 20);
  listening.dispose();
  assert.ok(underWay <= 1, `at most the frame under way: ${underWay}`);
  assert.is(cdpFrames, underWay, 'nothing is captured while nobody watches');
  assert.is(framesOf(client, started.subscription_id).length, count, 'no frame after stop');
  assert.equal(await client.call('screencast.stop', { session_id: sessionId, target_id: targetId }), { stopped: false });
});

s('max_fps paces frames by delaying the acks', async () => {
  const targetId = await open('/live-chart.html');
  const { subscription_id } = await client.call('screencast.start', { session_id: sessionId, target_id: targetId, max_fps: 4 });
  // A failed measurement must not leave its capture open for the tests after it.
  try {
    // Frame 2 follows the first ack at once; from there on each ack waits its 1/max_fps.
    const second = await nextFrame(client, subscription_id, 1);
    const sixth = await nextFrame(client, subscription_id, 5);
    const perSecond = 4000 / (sixth.time - second.time);
    // The page paints at 60 fps; four intervals at 4 fps take at least 1 s.
    assert.ok(perSecond <= 4.5, `at most ~4 frames a second, got ${perSecond.toFixed(1)}`);
  } finally {
    await client.call('screencast.stop', { session_id: sessionId, target_id: targetId });
  }
});

s('the connection closing ends its screencast; another connection on the same tab keeps the capture', async () => {
  const targetId = await open('/live-chart.html');
  const second = await server.connect();
  const mine = await client.call('screencast.start', { session_id: sessionId, target_id: targetId });
  // The same principal may watch the session from another connection (the inspector does).
  const theirs = await second.call('screencast.start', { session_id: sessionId, target_id: targetId });
  await nextFrame(second, theirs.subscription_id);
  await nextFrame(client, mine.subscription_id);
  assert.is(server.server.screencasts.captures, 1, 'one capture per tab, however many watch');
  second.close();
  const seq = framesOf(client, mine.subscription_id).at(-1)!.seq;
  await nextFrame(client, mine.subscription_id, seq + 1);
  assert.is(server.server.screencasts.captures, 1);
  await client.call('screencast.stop', { session_id: sessionId, target_id: targetId });
  const third = await server.connect();
  const { subscription_id } = await third.call('screencast.start', { session_id: sessionId, target_id: targetId });
  await nextFrame(third, subscription_id);
  third.close();
  await until(() => server.server.screencasts.captures === 0, 5_000);
});

/** Where the password and username fields of login.html are, in CSS pixels. */
function loginFields(targetId: string) {
  return evaluate<{ password: DOMRectInit; username: DOMRectInit; width: number }>(
    server,
    targetId,
    `(() => { const r = (id) => document.getElementById(id).getBoundingClientRect().toJSON();
       return { password: r('password'), username: r('username'), width: innerWidth }; })()`,
  );
}

/** Three pixels inside each field, read from the frame as decoded by Chromium itself, in another tab of the session. */
async function samplesOf(frame: ScreencastNotification, fields: Awaited<ReturnType<typeof loginFields>>) {
  const scale = frame.data.width / fields.width;
  const { target_id: decoder } = await client.call('tabs.new', { session_id: sessionId, url: 'about:blank' });
  const inside = (r: DOMRectInit) => [
    [r.x! + 6, r.y! + r.height! / 2],
    [r.x! + r.width! / 2, r.y! + r.height! / 2],
    [r.x! + r.width! - 8, r.y! + r.height! / 2],
  ];
  const samples = await evaluate<{ password: number[][]; username: number[][] }>(
    server,
    decoder,
    `(async () => {
       const img = new Image(); img.src = 'data:image/jpeg;base64,' + ${JSON.stringify(frame.data.data)}; await img.decode();
       const c = document.createElement('canvas'); c.width = img.width; c.height = img.height;
       const g = c.getContext('2d'); g.drawImage(img, 0, 0);
       const at = (points) => points.map(([x, y]) => [...g.getImageData(Math.round(x * ${scale}), Math.round(y * ${scale}), 1, 1).data]);
       return { password: at(${JSON.stringify(inside(fields.password))}), username: at(${JSON.stringify(inside(fields.username))}) };
     })()`,
  );
  await client.call('tabs.close', { session_id: sessionId, target_id: decoder });
  return samples;
}

function assertMasked(samples: Awaited<ReturnType<typeof samplesOf>>): void {
  for (const [r, g, b] of samples.password) assert.ok(r! < 40 && g! < 40 && b! < 40, `password box is black: ${samples.password}`);
  assert.ok(samples.username.some(([r, g, b]) => r! > 200 && g! > 200 && b! > 200), `the text field is not masked: ${samples.username}`);
}

s('a password input is masked in the frames (decoded pixels), the text field next to it is not', async () => {
  const targetId = await open('/login.html');
  const fields = await loginFields(targetId);
  const { subscription_id } = await client.call('screencast.start', { session_id: sessionId, target_id: targetId });
  const frame = await nextFrame(client, subscription_id);
  await client.call('screencast.stop', { session_id: sessionId, target_id: targetId });
  assertMasked(await samplesOf(frame, fields));
});

s('a still page navigated to while watched is shown, masked (a fresh frame is asked for once its masks are drawn)', async () => {
  const targetId = await open('/login.html');
  const { subscription_id } = await client.call('screencast.start', { session_id: sessionId, target_id: targetId });
  await nextFrame(client, subscription_id);
  const tab = tabOf(server, targetId);
  // The old page is still: every frame after its navigation is of the new one.
  const seqAtNavigation = new Promise<number>((resolve) => {
    const watching = tab.events.on('navigated', (navigation) => {
      if (navigation.sameDocument || navigation.frameId !== tab.mainFrameId) return;
      watching.dispose();
      resolve(framesOf(client, subscription_id).at(-1)!.seq);
    });
  });
  await evaluate(server, targetId, `location.href = '/login.html?again', true`);
  const after = await seqAtNavigation;
  const frame = await nextFrame(client, subscription_id, after);
  await client.call('screencast.stop', { session_id: sessionId, target_id: targetId });
  assertMasked(await samplesOf(frame, await loginFields(targetId)));
});

s('started while a dialog is open: no frame until it is closed, then a masked one', async () => {
  const targetId = await open('/login.html');
  const tab = tabOf(server, targetId);
  await evaluate(server, targetId, `setTimeout(() => alert('hold on'), 0), true`);
  await until(() => tab.dialogs.pending !== undefined, 5_000);
  const { subscription_id } = await client.call('screencast.start', { session_id: sessionId, target_id: targetId });
  // Chromium sends a frame of what the page drew before the masks (measured: within half a second).
  let listening: { dispose(): void } | undefined;
  const sent = new Promise<void>((resolve) => (listening = tab.session.on('Page.screencastFrame', () => resolve())));
  await within(5_000, sent, 'frame from Chromium while the dialog is open').finally(() => listening?.dispose());
  assert.is(framesOf(client, subscription_id).length, 0, 'no frame while the masks cannot be drawn');
  await client.call('dialog.handle', { session_id: sessionId, accept: true });
  const frame = await nextFrame(client, subscription_id);
  await client.call('screencast.stop', { session_id: sessionId, target_id: targetId });
  assertMasked(await samplesOf(frame, await loginFields(targetId)));
});

s('after the screencast the password input is no longer masked (the masks come off with it)', async () => {
  const targetId = await open('/login.html');
  await client.call('screencast.start', { session_id: sessionId, target_id: targetId });
  await client.call('screencast.stop', { session_id: sessionId, target_id: targetId });
  const masked = await evaluate<string>(server, targetId, `getComputedStyle(document.getElementById('password')).backgroundColor`);
  assert.is.not(masked, 'rgb(0, 0, 0)');
});

s('a reader that stops reading gets no queue: frames are skipped, at most one is unacknowledged', async () => {
  const targetId = await open('/live-chart.html');
  const slow = await server.connect();
  const { subscription_id } = await slow.call('screencast.start', {
    session_id: sessionId,
    target_id: targetId,
    max_fps: 30,
    quality: 100,
    max_width: 1600,
  });
  await nextFrame(slow, subscription_id);
  const connectionId = [...server.server.registry.all().find((x) => x.id === sessionId)!.clients].at(-1)!;
  slow.socket.pause();
  const stats = () => server.server.screencasts.statsOf(connectionId, targetId)!;
  // The socket backs up: the server stops offering frames to it.
  await until(() => stats().skipped > 0, 20_000);
  const held = stats();
  assert.ok(held.capture.received - held.capture.acked <= 1, `no frames pile up: ${JSON.stringify(held)}`);
  // While it stays backed up nothing more is sent or acknowledged, however much the page paints.
  await paints(targetId, 30);
  const later = stats();
  assert.is(later.delivered, held.delivered, 'no frame written while backed up');
  assert.is(later.capture.acked, held.capture.acked, 'no ack while backed up: Chromium sends nothing more');
  assert.ok(later.capture.received - later.capture.acked <= 1);
  slow.socket.resume();
  // Reading again: the newest frame is sent, and the stream goes on.
  await until(() => stats().delivered > later.delivered + 2, 20_000);
  slow.close();
  await until(() => server.server.screencasts.captures === 0, 5_000);
});

s('the SDK: session.screencast() hands frames to onFrame until stop()', async () => {
  const targetId = await open('/live-chart.html');
  const sdk = await connect(server.url);
  try {
    const frames: Array<{ seq: number; width: number }> = [];
    let seen!: () => void;
    const three = new Promise<void>((resolve) => (seen = resolve));
    const screencast = await sdk.session(sessionId).screencast({
      target_id: targetId,
      onFrame: (frame, event) => {
        frames.push({ seq: event.seq, width: frame.width });
        if (frames.length === 3) seen();
      },
    });
    assert.is(screencast.targetId, targetId);
    await three;
    assert.equal(frames.map((f) => f.seq), [1, 2, 3]);
    await screencast.stop();
    assert.is(server.server.screencasts.captures, 0);
  } finally {
    await sdk.close();
  }
});

s.run();
