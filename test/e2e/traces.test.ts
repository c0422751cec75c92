// Traces (PROTOCOL.md §16) in real Chromium: a recorded run on real-looking pages (a sign-in form
// with a password, a shop behind a cookie dialog, an alert, a navigation), exported and read back
// as a stranger would read the zip: every step in order with its method, the refusal's error_type
// and blocker, the dialog event, acted_on links, frames present and masked (pixels decoded by
// Chromium), the typed password absent from every byte; the frame cap drops the oldest frames and
// keeps every step; GET /traces/<name> serves the file to its principal only.
import { Buffer } from 'node:buffer';
import { readFileSync } from 'node:fs';
import { basename, dirname } from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import type { TestClient } from '../helpers/client.ts';
import { type FixtureServer, fixtureServer } from '../helpers/fixture-server.ts';
import { evaluate } from '../helpers/page.ts';
import { sharedServer, startTestServer, type TestServer } from '../helpers/pagewire.ts';
import { type ActResult, freshState, type Observation, ref, type TraceEvent, type TraceHeader, type TraceStep } from '../helpers/wire.ts';
import { jsonLines, readZip, type ZipEntryRead } from '../helpers/zip.ts';
import { textOf, v2Http } from '../helpers/mcp.ts';

const PASSWORD = `Tr4ce-${crypto.randomUUID().slice(0, 12)}`;

const s = suite('traces');
let server: TestServer;
let fixtures: FixtureServer;
let client: TestClient;

s.before(async () => {
  server = await sharedServer();
  fixtures = await fixtureServer();
  client = await server.connect();
});

s.after(() => client.close());

interface Exported {
  path: string;
  size: number;
  steps: number;
  frames: number;
  dropped_frames: number;
}

interface Trace {
  bytes: Uint8Array;
  entries: ZipEntryRead[];
  header: TraceHeader;
  steps: TraceStep[];
  events: TraceEvent[];
}

function readTrace(path: string): Trace {
  const bytes = new Uint8Array(readFileSync(path));
  const entries = readZip(bytes);
  const header = JSON.parse(new TextDecoder().decode(entries[0]!.data)) as TraceHeader;
  return {
    bytes,
    entries,
    header,
    steps: jsonLines<TraceStep>(entries.find((e) => e.name === 'steps.jsonl')),
    events: jsonLines<TraceEvent>(entries.find((e) => e.name === 'events.jsonl')),
  };
}

function contains(haystack: Uint8Array, needle: string): boolean {
  return Buffer.from(haystack).includes(Buffer.from(needle));
}

/** The colour of points of a frame, decoded by Chromium itself in a tab of the session. */
async function pixelsOf(sessionId: string, jpeg: Uint8Array, points: Array<[number, number]>): Promise<number[][]> {
  const { target_id: decoder } = await client.call('tabs.new', { session_id: sessionId, url: 'about:blank' });
  try {
    return await evaluate<number[][]>(
      server,
      decoder,
      `(async () => {
         const img = new Image(); img.src = 'data:image/jpeg;base64,' + ${JSON.stringify(Buffer.from(jpeg).toString('base64'))};
         await img.decode();
         const c = document.createElement('canvas'); c.width = img.width; c.height = img.height;
         const g = c.getContext('2d'); g.drawImage(img, 0, 0);
         return ${JSON.stringify(points)}.map(([x, y]) => [...g.getImageData(Math.round(x), Math.round(y), 1, 1).data]);
       })()`,
    );
  } finally {
    await client.call('tabs.close', { session_id: sessionId, target_id: decoder });
  }
}

s('a recorded run: steps in order, the refusal and its blocker, the dialog, acted_on, masked frames, no password', async () => {
  const { session_id: sessionId } = await client.call('session.create', { name: 'traced', trace: true });
  const call = <T>(method: string, params: Record<string, unknown> = {}) => client.call<T>(method, { session_id: sessionId, ...params });

  // Sign in: a password typed through act, and a username.
  const { target_id: login } = await call<{ target_id: string }>('tabs.new', { url: fixtures.url('/login.html') });
  const signIn = await call<Observation>('observe', { target_id: login });
  const typed = await call<ActResult>('act', {
    state_id: signIn.state_id,
    actions: [
      { action: 'fill', ref: ref(signIn, 'Password'), text: PASSWORD },
      { action: 'fill', ref: ref(signIn, 'Username'), text: 'alice-traced' },
    ],
  });
  assert.is(typed.status, 'completed', typed.error_text);
  const passwordBox = await evaluate<DOMRectInit>(server, login, `document.getElementById('password').getBoundingClientRect().toJSON()`);

  // A shop behind a cookie dialog: the click on the link is refused, the dialog named.
  const { target_id: shop } = await call<{ target_id: string }>('tabs.new', { url: fixtures.url('/shop-consent.html') });
  const seen = await call<Observation>('observe', { target_id: shop });
  const refused = await call<ActResult>('act', { state_id: seen.state_id, action: 'click', ref: ref(seen, 'Size guide', 'link') });
  assert.is(refused.error_type, 'click_intercepted', refused.error_text);

  // An alert, answered.
  const afterRefusal = freshState(refused);
  await call('act', { action: 'navigate', url: fixtures.url('/alert.html'), target_id: shop });
  const alertPage = await call<Observation>('observe', { target_id: shop });
  await call<ActResult>('act', { state_id: alertPage.state_id, action: 'click', ref: ref(alertPage, 'Alert me') });
  await call('dialog.handle', { accept: true });
  // A navigation back to the sign-in page.
  await call('act', { action: 'navigate', url: fixtures.url('/login.html'), target_id: shop });
  // Calls that only watch are no steps.
  await call('events.poll', {});

  const stopped = await call<{ recording: false; steps: number }>('trace.stop');
  const exported = await call<Exported>('trace.export');
  assert.is(exported.steps, stopped.steps);
  assert.is(basename(dirname(exported.path)), sessionId, "in the session's downloads folder");
  assert.match(basename(exported.path), new RegExp(`^pagewire-trace-${sessionId}-\\d{8}-\\d{6}( \\(\\d+\\))?\\.zip$`));
  const trace = readTrace(exported.path);
  assert.is(trace.bytes.length, exported.size);

  // The header first, then the lines, then the frames.
  assert.equal(trace.entries.slice(0, 3).map((e) => e.name), ['trace.json', 'steps.jsonl', 'events.jsonl']);
  assert.is(trace.header.format, 'pagewire-trace');
  assert.is(trace.header.version, 1);
  assert.is(trace.header.session_id, sessionId);
  assert.equal(trace.header.viewport, { width: 1280, height: 720 });
  assert.is(trace.header.steps, trace.steps.length);
  assert.is(trace.header.events, trace.events.length);
  assert.is(trace.header.frames, exported.frames);
  assert.is(trace.header.dropped_frames, 0);

  // Every call in order, with its method; nothing that only watched.
  assert.equal(trace.steps.map((step) => step.method), [
    'tabs.new',
    'observe',
    'act',
    'tabs.new',
    'observe',
    'act',
    'act',
    'observe',
    'act',
    'dialog.handle',
    'act',
  ]);
  assert.equal(trace.steps.map((step) => step.seq), trace.steps.map((_, i) => i + 1));
  for (const step of trace.steps) assert.ok(step.at >= trace.header.started_at && step.duration_ms >= 0, JSON.stringify(step));

  // acted_on: each act names the step whose observation it acted on.
  const [, observed, fill, , shopObserved, click] = trace.steps;
  assert.is(fill!.acted_on, observed!.seq);
  assert.is(click!.acted_on, shopObserved!.seq);
  assert.is((observed!.result as Observation).state_id, signIn.state_id);

  // The refusal: its words and the blocker it names, and the target's box in the frame before it.
  const clickResult = click!.result as ActResult;
  assert.is(clickResult.error_type, 'click_intercepted');
  assert.is(clickResult.hit?.role, 'dialog');
  assert.is(clickResult.hit?.name, 'This website uses cookies');
  assert.is(clickResult.fresh_state?.state_id, afterRefusal.state_id);
  assert.is(click!.target?.ref, ref(seen, 'Size guide', 'link'));
  assert.ok(click!.target!.box.width > 0 && click!.target!.box.height > 0, JSON.stringify(click!.target));
  assert.is(click!.tab_id, shop);

  // The dialog: an event during the act that opened it, and the answer a step of its own.
  const dialog = trace.events.find((event) => event.kind === 'dialog');
  assert.ok(dialog, JSON.stringify(trace.events.map((e) => e.kind)));
  assert.is((dialog!.data as { message: string }).message, 'Hello from alert');
  assert.is(dialog!.step, trace.steps[8]!.seq);
  assert.is((trace.steps[9]!.result as { action: string }).action, 'accepted');
  assert.ok(trace.events.some((event) => event.kind === 'navigation'), 'navigations are events');
  assert.not.ok(trace.events.some((event) => event.kind === 'act'), 'an act is a step, not also an event');

  // Frames: before and after each act (none while the alert held the tab), each an entry.
  const names = new Set(trace.entries.map((e) => e.name));
  for (const step of trace.steps.filter((x) => x.method === 'act')) {
    for (const frame of [step.frame_before, step.frame_after]) if (frame) assert.ok(names.has(frame), frame);
  }
  assert.ok(fill!.frame_before && fill!.frame_after && click!.frame_before && click!.frame_after, 'frames around the acts');
  assert.is(trace.entries.filter((e) => e.name.startsWith('frames/')).length, exported.frames);
  const after = trace.entries.find((e) => e.name === fill!.frame_after)!;
  assert.equal([...after.data.subarray(0, 3)], [0xff, 0xd8, 0xff], 'a JPEG');
  assert.is(after.method, 0, 'JPEGs are stored');

  // The password field in the frame after the fill is the mask's black; the text field is not.
  const scale = fill!.frame_scale!;
  assert.ok(scale > 0 && scale <= 1, `scale ${scale}`);
  const middle = (r: DOMRectInit, dx: number): [number, number] => [(r.x! + dx) * scale, (r.y! + r.height! / 2) * scale];
  const masked = await pixelsOf(sessionId, after.data, [
    middle(passwordBox, 8),
    middle(passwordBox, passwordBox.width! / 2),
    middle(passwordBox, passwordBox.width! - 10),
  ]);
  for (const [r, g, b] of masked) assert.ok(r! < 50 && g! < 50 && b! < 50, `the password field is masked: ${JSON.stringify(masked)}`);

  // The typed password: in no byte of the file, nor of any entry once inflated; the username is kept.
  assert.not.ok(contains(trace.bytes, PASSWORD), 'not in the raw zip');
  for (const entry of trace.entries) assert.not.ok(contains(entry.data, PASSWORD), `not in ${entry.name}`);
  assert.not.ok(contains(trace.bytes, PASSWORD.slice(0, 8)), 'not even its beginning');
  const actions = (fill!.params as { actions: Array<{ text: string }> }).actions;
  assert.equal(actions.map((a) => a.text), ['[redacted]', 'alice-traced']);

  // Served to its principal by name, and nothing else.
  const url = (path: string) => `${server.server.url.replace(/^ws:/, 'http:')}${path.slice(1)}`;
  const name = encodeURIComponent(basename(exported.path));
  const served = await fetch(url(`/traces/${name}?token=${server.token}`));
  assert.is(served.status, 200);
  assert.is(served.headers.get('content-type'), 'application/zip');
  assert.equal(new Uint8Array(await served.arrayBuffer()), trace.bytes);
  assert.is((await fetch(url(`/traces/${name}`))).status, 401, 'the token is checked');
  for (const wrong of ['..%2F..%2Fetc%2Fpasswd', `..%2F${sessionId}%2F${name}`, 'pagewire-trace-s_nobody-20260101-000000.zip', '']) {
    const refusedFetch = await fetch(url(`/traces/${wrong}?token=${server.token}`));
    assert.is(refusedFetch.status, 404, wrong);
    await refusedFetch.body?.cancel();
  }
  const stranger = await startTestServer();
  const elsewhere = await fetch(`${stranger.server.url.replace(/^ws:/, 'http:')}traces/${name}?token=${stranger.token}`);
  assert.is(elsewhere.status, 404, "another server's principal never reads it");
  await elsewhere.body?.cancel();
  await call('session.close');
});

s('trace.start on a running session, the frame cap: the oldest frames dropped and counted, every step kept', async () => {
  const capped = await startTestServer(['--trace-max-frames', '2']);
  const own = await capped.connect();
  try {
    const { session_id: sessionId } = await own.call('session.create', { name: 'capped' });
    const call = <T>(method: string, params: Record<string, unknown> = {}) => own.call<T>(method, { session_id: sessionId, ...params });
    const notYet = await own.callError('trace.export', { session_id: sessionId });
    assert.is(notYet.data?.error_type, 'invalid_request');
    assert.match(notYet.message, /trace\.start/);
    await call('tabs.new', { url: fixtures.url('/counter.html') });
    assert.equal(await call('trace.start'), { recording: true });
    for (let i = 0; i < 3; i++) {
      const o = await call<Observation>('observe');
      const r = await call<ActResult>('act', {
        state_id: o.state_id,
        action: 'click',
        ref: o.elements.find((e) => e.role === 'button')!.ref,
      });
      assert.is(r.status, 'completed', r.error_text);
    }
    const exported = await call<Exported>('trace.export');
    assert.is(exported.steps, 6, 'every step kept');
    assert.is(exported.frames, 2);
    assert.is(exported.dropped_frames, 4);
    const trace = readTrace(exported.path);
    assert.is(trace.header.dropped_frames, 4);
    assert.equal(trace.entries.filter((e) => e.name.startsWith('frames/')).map((e) => e.name), ['frames/5.jpg', 'frames/6.jpg']);
    // A step names only frames that are in the file.
    const named = trace.steps.flatMap((step) => [step.frame_before, step.frame_after].filter((f): f is string => f !== undefined));
    assert.equal(named, ['frames/5.jpg', 'frames/6.jpg']);
    assert.is(trace.steps.filter((step) => step.method === 'act').length, 3);
  } finally {
    own.close();
    await capped.server.close();
  }
});

s('MCP: browser_session creates a traced session and exports its trace; trace_start and trace_stop say so in words', async () => {
  const door = await v2Http(`${server.server.mcpUrl}?token=${server.token}`);
  try {
    const created = await door.call('browser_session', { action: 'create', name: 'mcp-traced', trace: true });
    assert.is(created.isError, false, textOf(created));
    const sessionId = created.structuredContent!['session_id'] as string;
    const opened = await door.call('browser_tabs', { session_id: sessionId, action: 'new', url: fixtures.url('/counter.html') });
    assert.is(opened.isError, false, textOf(opened));
    const stopped = await door.call('browser_session', { action: 'trace_stop', session_id: sessionId });
    assert.match(textOf(stopped), /recording stopped after 1 steps/);
    const started = await door.call('browser_session', { action: 'trace_start', session_id: sessionId });
    assert.equal(started.structuredContent, { recording: true });
    const exported = await door.call('browser_session', { action: 'trace_export', session_id: sessionId });
    assert.is(exported.isError, false, textOf(exported));
    const path = exported.structuredContent!['path'] as string;
    assert.match(textOf(exported), new RegExp(`trace written to .*${sessionId}.*: 1 steps`));
    const trace = readTrace(path);
    assert.equal(trace.steps.map((step) => step.method), ['tabs.new']);
    await door.call('browser_session', { action: 'close', session_id: sessionId });
  } finally {
    await door.close();
  }
});

s.run();
