// Traces in the inspector, in real headless Chromium: a trace file dropped on the page opens as a
// timeline of steps whose refusal shows its reason and blocker, and a file of another version,
// another format, or a damaged one is refused with a sentence in the page.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import type { TestClient } from '../helpers/client.ts';
import { type FixtureServer, fixtureServer } from '../helpers/fixture-server.ts';
import { InspectorPage } from '../helpers/inspector-page.ts';
import { sharedServer, type TestServer } from '../helpers/pagewire.ts';
import { decodeBase64 } from '../helpers/png.ts';
import { traceZip } from '../helpers/trace-zip.ts';
import { ref } from '../helpers/wire.ts';

const s = suite('trace view');
let server: TestServer;
let fixtures: FixtureServer;
let agent: TestClient;
let agentSession: string;
let agentTab: string;
let viewer: TestClient;
let viewerSession: string;
let inspector: InspectorPage;

const VIEWPORT = { width: 1000, height: 700 };

s.before(async () => {
  server = await sharedServer();
  fixtures = await fixtureServer();
  agent = await server.connect();
  ({ session_id: agentSession, target_id: agentTab } = await agent.call('session.create', {
    name: 'agent',
    viewport: VIEWPORT,
    dialogs: 'accept',
  }));
  viewer = await server.connect();
  viewerSession = (await viewer.call('session.create', { name: 'viewer', viewport: { width: 1400, height: 900 } })).session_id;
  inspector = await InspectorPage.open(server, viewer, viewerSession);
  await inspector.until(`document.body.dataset.ready`);
});
s.after(async () => {
  await agent?.call('session.close', { session_id: agentSession }).catch(() => {});
  await viewer?.call('session.close', { session_id: viewerSession }).catch(() => {});
  agent?.close();
  viewer?.close();
});

/** The text of the selected step's part `id` (`step-result`, `step-events`…). */
const partText = (id: string) => inspector.eval<string>(`document.getElementById(${JSON.stringify(id)})?.innerText ?? ''`);

s('a trace file dropped on the inspector opens: every step, the refused one with its reason and blocker', async () => {
  await agent.call('act', { session_id: agentSession, action: 'navigate', url: fixtures.url('/account-security.html') });
  const seen = await agent.call('observe', { session_id: agentSession, include_boxes: true });
  const remove = ref(seen, 'Delete account', 'button');
  const shot = async () => decodeBase64((await agent.call('screenshot', { session_id: agentSession, format: 'jpeg', quality: 60 })).data);
  const before = await shot();
  const at = Date.now();
  const refused = await agent.call('act', { session_id: agentSession, state_id: seen.state_id, action: 'click', ref: remove });
  assert.is(refused.error_type, 'click_intercepted');
  const after = await shot();
  const [x, y, width, height] = seen.boxes![remove]!;
  // Laid out as the server writes a trace (PROTOCOL.md §16), from what the wire answered here.
  const file = traceZip({
    deflate: true,
    header: { session_id: agentSession, viewport: VIEWPORT },
    steps: [
      { seq: 1, method: 'observe', tab_id: agentTab, at: at - 400, duration_ms: 90, params: { include_boxes: true }, result: seen },
      {
        seq: 2,
        method: 'act',
        tab_id: agentTab,
        at,
        duration_ms: 140,
        params: { state_id: seen.state_id, action: 'click', ref: remove },
        result: refused,
        acted_on: 1,
        frame_before: 'frames/1.jpg',
        frame_after: 'frames/2.jpg',
        target: { ref: remove, box: { x, y, width, height } },
        frame_scale: 1,
      },
    ],
    events: [{ seq: 1, step: 2, at: at + 20, kind: 'console', data: { level: 'warn', text: 'consent: banner shown' } }],
    frames: { 'frames/1.jpg': before, 'frames/2.jpg': after },
  });
  await inspector.drop('run.zip', file);
  await inspector.until(`document.getElementById('trace-view')?.dataset.state === 'ready'`);
  assert.is(await inspector.eval<number>(`document.querySelectorAll('#timeline [data-seq]').length`), 2);
  const refusedRow = await inspector.eval<string>(`document.querySelector('#timeline [data-seq="2"]').innerText`);
  assert.match(refusedRow, `act click ${remove} → refused: click_intercepted — covered by region "Cookie banner"`);
  await inspector.eval(`document.querySelector('#timeline [data-seq="2"]').click()`);
  await inspector.until(`document.querySelector('#step-title[data-seq="2"]')`);
  const result = await partText('step-result');
  assert.match(result, /blocker\s+covered by region "Cookie banner"/);
  assert.match(result, /error_type\s+click_intercepted — another element is on top/);
  // The observation acted on, with the acted ref's line lit.
  assert.match(
    await inspector.eval<string>(`document.querySelector('#step-observation .line.acted').textContent`),
    `"Delete account" ${remove}`,
  );
  assert.match(await partText('step-console'), 'console warn consent: banner shown');
  // The target's box over the frame before, where the button is in that frame.
  await inspector.until(`document.querySelector('#step-frames [data-frame=before] .target')`);
  const drawn = await inspector.eval<{ x: number; w: number }>(`(() => {
    const b = document.querySelector('#step-frames [data-frame=before] .target').getBoundingClientRect();
    const i = document.querySelector('#step-frames [data-frame=before] img').getBoundingClientRect();
    return { x: (b.x - i.x) / i.width, w: b.width / i.width }; })()`);
  assert.ok(Math.abs(drawn.x - x / VIEWPORT.width) < 0.01 && Math.abs(drawn.w - width / VIEWPORT.width) < 0.01, JSON.stringify(drawn));
  // The refusals filter keeps the refused step only.
  await inspector.eval(
    `(() => { const f = document.getElementById('trace-filter'); f.value = 'short'; f.dispatchEvent(new Event('change')); })()`,
  );
  assert.equal(await inspector.eval<string[]>(`[...document.querySelectorAll('#timeline [data-seq]')].map((li) => li.dataset.seq)`), ['2']);
  await inspector.eval(
    `(() => { const f = document.getElementById('trace-filter'); f.value = 'all'; f.dispatchEvent(new Event('change')); })()`,
  );
});

s('a trace of another version, another format, a missing entry or damaged bytes: a sentence in the page', async () => {
  const steps = [{ seq: 1, method: 'observe', at: Date.now(), duration_ms: 5, params: {} }];
  const good = traceZip({ steps, deflate: true });
  const cases: Array<[string, Uint8Array, string]> = [
    [
      'future.zip',
      traceZip({ steps, header: { version: 7, pagewire: '3.0.0' } }),
      'is a pagewire trace of version 7 (written by pagewire 3.0.0); this inspector reads version 1 only.',
    ],
    ['other.zip', traceZip({ steps, header: { format: 'har' } }), 'is not a pagewire trace: its format is "har", not "pagewire-trace".'],
    ['partial.zip', traceZip({ steps, without: ['events.jsonl'] }), 'is not a pagewire trace: it has no events.jsonl.'],
    ['cut.zip', good.subarray(0, good.length - 40), 'cannot be opened: The file is not a ZIP archive'],
    ['page.zip', new TextEncoder().encode('<!doctype html><p>Not found</p>'), 'cannot be opened: The file is not a ZIP archive'],
  ];
  for (const [name, bytes, sentence] of cases) {
    await inspector.drop(name, bytes);
    await inspector.until(`document.getElementById('trace-error')?.textContent.startsWith(${JSON.stringify(`"${name}"`)})`);
    assert.match(await inspector.eval<string>(`document.getElementById('trace-error').textContent`), `"${name}" ${sentence}`);
  }
  // Back to the live view from there.
  await inspector.eval(`document.getElementById('back-to-live').click()`);
  await inspector.until(`!document.querySelector('.inspector').hidden && document.getElementById('trace-view').hidden`);
});

s.run();
