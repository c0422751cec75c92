// /inspector in real headless Chromium: the page is opened with the token in a tab of a second
// pagewire session of the same server (the server's own browser), shows the agent's tab live,
// runs an act from a click on the live view and shows its result and its event, answers a
// dialog with its button, and a wrong token gets no data. The screenshots it takes are the
// README's (docs/images/).
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import type { TestClient } from '../helpers/client.ts';
import { until } from '../helpers/fake-cdp.ts';
import { type FixtureServer, fixtureServer } from '../helpers/fixture-server.ts';
import { InspectorPage } from '../helpers/inspector-page.ts';
import { evaluate } from '../helpers/page.ts';
import { startTestServer, type TestServer } from '../helpers/pagewire.ts';
import { ref } from '../helpers/wire.ts';

const s = suite('inspector');
let server: TestServer;
let fixtures: FixtureServer;
let agent: TestClient;
let agentSession: string;
let agentTab: string;
let viewer: TestClient;
let viewerSession: string;
let inspector: InspectorPage;

s.before(async () => {
  server = await startTestServer();
  fixtures = await fixtureServer();
  agent = await server.connect();
  ({ session_id: agentSession } = await agent.call('session.create', { name: 'agent', dialogs: 'hold' }));
  ({ target_id: agentTab } = await agent.call('tabs.new', { session_id: agentSession, url: fixtures.url('/events.html') }));
  viewer = await server.connect();
  viewerSession = (await viewer.call('session.create', { name: 'viewer', viewport: { width: 1400, height: 900 } })).session_id;
});
s.after(async () => {
  agent?.close();
  viewer?.close();
});

const inPage = <T>(expression: string) => inspector.eval<T>(expression);
const pageUntil = (expression: string) => inspector.until(expression);
const screenshot = (name: string) => inspector.screenshot(name);

s('a wrong or missing token gets no data: 401 for the page and its scripts, and no socket', async () => {
  const base = server.server.inspectorUrl;
  for (const url of [base, `${base}?token=wrong`, `${base}/inspector.js?token=wrong`, `${base}/pagewire-client.js`]) {
    const response = await fetch(url);
    assert.is(response.status, 401, url.replace(/token=[^&]*/, 'token=…'));
    assert.not.match(await response.text(), 'pagewire inspector');
  }
  // Opened in the browser with a wrong token: the page itself is refused, nothing loads.
  const { target_id } = await viewer.call('tabs.new', { session_id: viewerSession, url: `${base}?token=wrong` });
  const body = await evaluate<string>(server, target_id, 'document.body.innerText');
  assert.match(body, 'missing or wrong token');
  await viewer.call('tabs.close', { session_id: viewerSession, target_id });
});

// How soon the first picture comes is for the bench (npm run bench:screencast, "first frame"):
// a timed assertion here would measure the machine's load.
s("the page with the token shows the agent's tab live", async () => {
  const response = await fetch(`${server.server.inspectorUrl}?token=${server.token}`);
  assert.is(response.status, 200);
  assert.match(response.headers.get('content-security-policy') ?? '', "default-src 'none'");
  inspector = await InspectorPage.open(server, viewer, viewerSession, `&session=${agentSession}`);
  await pageUntil(`document.getElementById('live')?.dataset.frames >= 1`);
  assert.ok(await inPage<boolean>(`document.getElementById('live').naturalWidth > 100`), 'the frame is an image that decoded');
  const sessions = await inPage<string[]>(`[...document.querySelectorAll('[data-session]')].map((b) => b.textContent)`);
  assert.ok(
    sessions.some((name) => name.startsWith('agent')) && sessions.some((name) => name.startsWith('viewer')),
    `sessions: ${sessions}`,
  );
  await pageUntil(`document.querySelector('[data-target].selected')?.textContent.includes('events')`);
  // The observation is shown with its refs.
  await pageUntil(`document.querySelector('.elements [data-ref]')`);
  assert.ok(server.server.screencasts.captures >= 1);
});

s("observe include_boxes: each visible element's box in CSS px of the viewport, also after scrolling", async () => {
  const rectOf = (name: string) =>
    evaluate<[number, number, number, number]>(
      server,
      agentTab,
      `(() => { const r = [...document.querySelectorAll('button')].find((b) => b.textContent === ${
        JSON.stringify(name)
      }).getBoundingClientRect(); return [r.x, r.y, r.width, r.height]; })()`,
    );
  const plain = await agent.call('observe', { session_id: agentSession });
  assert.is(plain.boxes, undefined, 'only when asked');
  await evaluate(
    server,
    agentTab,
    `document.body.style.minHeight = '3000px'; scrollTo(0, 40); new Promise((d) => requestAnimationFrame(() => d(true)))`,
  );
  const observation = await agent.call('observe', { session_id: agentSession, include_boxes: true });
  const box = observation.boxes![ref(observation, 'Warn', 'button')]!;
  const rect = await rectOf('Warn');
  assert.ok(box.every((v, i) => Math.abs(v - rect[i]!) <= 0.5), `box ${box} is the element's viewport rect ${rect}`);
  await evaluate(
    server,
    agentTab,
    `scrollTo(0, 0); document.body.style.minHeight = ''; new Promise((d) => requestAnimationFrame(() => d(true)))`,
  );
});

s('hovering a ref lights up its box over the live view, and hovering the box lights up the ref', async () => {
  const before = await inPage<string>(`document.getElementById('state').textContent`);
  await inPage(`document.getElementById('observe').click()`);
  // The new observation is drawn (boxes and list are replaced together when it arrives).
  await pageUntil(`document.getElementById('state').textContent !== ${JSON.stringify(before)} && document.querySelector('#boxes .box')`);
  const warn = await inPage<string>(
    `[...document.querySelectorAll('.elements [data-ref]')].find((li) => li.textContent.includes('Warn')).dataset.ref`,
  );
  await inPage(`document.querySelector('.elements [data-ref="${warn}"]').dispatchEvent(new MouseEvent('mouseenter'))`);
  assert.ok(await inPage<boolean>(`document.querySelector('#boxes [data-ref="${warn}"]').classList.contains('lit')`), 'its box is lit');
  await inPage(`document.querySelector('.elements [data-ref="${warn}"]').dispatchEvent(new MouseEvent('mouseleave'))`);
  await inPage(`document.querySelector('#boxes [data-ref="${warn}"]').dispatchEvent(new MouseEvent('mouseenter'))`);
  assert.ok(await inPage<boolean>(`document.querySelector('.elements [data-ref="${warn}"]').classList.contains('lit')`), 'and back');
  // The box sits where the button is drawn in the live view.
  const [drawn, page] = await Promise.all([
    inPage<{ x: number; w: number }>(
      `(() => { const b = document.querySelector('#boxes [data-ref="${warn}"]').getBoundingClientRect(); const i = document.getElementById('live').getBoundingClientRect(); return { x: (b.x - i.x) / i.width, w: b.width / i.width }; })()`,
    ),
    evaluate<{ x: number; w: number }>(
      server,
      agentTab,
      `(() => { const r = [...document.querySelectorAll('button')].find((b) => b.textContent === 'Warn').getBoundingClientRect(); return { x: r.x / innerWidth, w: r.width / innerWidth }; })()`,
    ),
  ]);
  assert.ok(
    Math.abs(drawn.x - page.x) < 0.01 && Math.abs(drawn.w - page.w) < 0.01,
    `drawn ${JSON.stringify(drawn)} vs page ${JSON.stringify(page)}`,
  );
  await screenshot('inspector-hover.png');
});

s('a click on the live view is an act at that point: its result and its event show', async () => {
  const observation = await agent.call('observe', { session_id: agentSession });
  const warn = ref(observation, 'Warn', 'button');
  assert.ok(warn);
  const target = await evaluate<{ x: number; y: number }>(
    server,
    agentTab,
    `(() => { const b = [...document.querySelectorAll('button')].find((b) => b.textContent === 'Warn').getBoundingClientRect();
       return { x: b.x + b.width / 2, y: b.y + b.height / 2 }; })()`,
  );
  // Where that point of the page is drawn in the inspector's live view.
  const viewport = await evaluate<number>(server, agentTab, 'innerWidth');
  const at = await inPage<{ x: number; y: number }>(
    `(() => { const r = document.getElementById('live').getBoundingClientRect(); const k = r.width / ${viewport};
       return { x: r.left + ${target.x} * k, y: r.top + ${target.y} * k }; })()`,
  );
  // A person's click, through the viewer session's own act on the inspector page.
  const seen = await viewer.call('observe', { session_id: viewerSession, target_id: inspector.targetId });
  const clicked = await viewer.call('act', {
    session_id: viewerSession,
    target_id: inspector.targetId,
    state_id: seen.state_id,
    action: 'click',
    x: at.x,
    y: at.y,
  });
  assert.ok(['completed', 'verified'].includes(clicked.status), clicked.status);
  await pageUntil(`document.querySelector('#acts .act')`);
  const act = await inPage<{ status: string; text: string }>(
    `(() => { const li = document.querySelector('#acts .act'); return { status: li.dataset.status, text: li.querySelector('.words').textContent + ' | ' + li.querySelector('small').textContent }; })()`,
  );
  assert.ok(['completed', 'verified'].includes(act.status), `act result shown: ${act.text}`);
  // A readable row (the same words as a trace's steps), with the fields a person checks next.
  assert.match(act.text, /^act click at [\d.]+, [\d.]+ → (completed|verified) \| execution \w+ · observation \w+ · postcondition \w+$/);
  // Its event: the page's console.warn, redacted as every event is.
  await pageUntil(`document.querySelector('#events [data-kind=console]')`);
  const event = await inPage<string>(`document.querySelector('#events [data-kind=console]').textContent`);
  assert.match(event, 'careful: token=[redacted]');
  await screenshot('inspector.png');
});

s("the agent's own acts show in the act log, with how each one ended", async () => {
  const observation = await agent.call('observe', { session_id: agentSession });
  const done = await agent.call('act', {
    session_id: agentSession,
    state_id: observation.state_id,
    action: 'click',
    ref: ref(observation, 'Warn', 'button'),
  });
  assert.is(done.status, 'completed');
  // The same state again: refused as stale, and the log says so.
  const stale = await agent.call('act', {
    session_id: agentSession,
    state_id: observation.state_id,
    action: 'click',
    ref: ref(observation, 'Warn', 'button'),
  });
  assert.is(stale.error_type, 'stale_state');
  await pageUntil(`document.querySelector('#acts .act[data-source=session][data-status=stale_observation]')`);
  const rows = await inPage<string[]>(
    `[...document.querySelectorAll('#acts .act[data-source=session]')].map((li) => li.querySelector('.words').textContent + ' | ' + li.querySelector('small').textContent)`,
  );
  assert.match(
    rows[0]!,
    /^act click → refused: stale_state — .+ \| execution not_dispatched · observation captured · postcondition not_requested$/,
  );
  assert.match(rows[1]!, /^act click → completed \| execution completed · observation captured/);
  // Both are session events too, for any client that watches.
  await pageUntil(`document.querySelectorAll('#events [data-kind=act]').length >= 2`);
});

s('a pending dialog shows with buttons; Accept answers it', async () => {
  const observation = await agent.call('observe', { session_id: agentSession });
  await inPage(`(() => {
    const form = document.getElementById('act-form');
    form.querySelector('[name=action]').value = 'click';
    form.querySelector('[name=ref]').value = ${JSON.stringify(ref(observation, 'Confirm', 'button'))};
    form.requestSubmit();
  })()`);
  await pageUntil(`document.querySelector('[data-pending=dialog] button')`).catch(async (error) => {
    throw new Error(`${error.message}; acts: ${await inPage<string>(`document.getElementById('acts').textContent`)}`);
  });
  assert.match(await inPage<string>(`document.querySelector('[data-pending=dialog]').textContent`), 'confirm text');
  await screenshot('inspector-dialog.png');
  await inPage(`[...document.querySelectorAll('[data-pending=dialog] button')].find((b) => b.textContent === 'Accept').click()`);
  // The dialog answered, the page goes on: its status line says what confirm() returned.
  await pageUntil(`!document.querySelector('[data-pending=dialog]')`);
  const status = await evaluate<string>(server, agentTab, `document.getElementById('status')?.textContent ?? ''`);
  assert.is(status, 'confirm true');
});

s('a frame the observation could not read shows with its reason above the tree', async () => {
  await agent.call('act', {
    session_id: agentSession,
    target_id: agentTab,
    action: 'navigate',
    url: fixtures.url('/never-loads-frame.html'),
  });
  const observation = await agent.call('observe', { session_id: agentSession });
  const hanging = observation.frames.find((frame) => frame.status === 'unavailable');
  assert.ok(hanging?.reason, JSON.stringify(observation.frames));
  await inPage(`document.getElementById('observe').click()`);
  await pageUntil(`document.querySelector('[data-frame-note=unavailable]')`);
  const note = await inPage<string>(`document.querySelector('[data-frame-note=unavailable]').textContent`);
  assert.is(note, `frame unavailable: ${hanging!.url} (${hanging!.reason})`);
  // The page read whole again: the note goes.
  await agent.call('act', { session_id: agentSession, target_id: agentTab, action: 'navigate', url: fixtures.url('/events.html') });
  await inPage(`document.getElementById('observe').click()`);
  await pageUntil(`!document.querySelector('[data-frame-note]') && document.getElementById('state').textContent.includes('events')`);
});

s('closing the inspector ends its screencast', async () => {
  await inspector.close();
  await until(() => server.server.screencasts.captures === 0, 5_000);
});

s.run();
