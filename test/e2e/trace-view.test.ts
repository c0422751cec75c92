// Traces in the inspector, in real headless Chromium: a run recorded with a refusal, a dialog and a
// navigation, exported, opens from `?trace=` (dropped on the page, or picked with Open trace…) as a timeline of every step;
// the refusal shows its reason and blocker, the password field is masked in the frames shown, and
// a file of another version, another format, or a damaged one is refused with a sentence in the
// page. The trace screenshot of the README is taken here (docs/images/inspector-trace.png).
import { readFileSync } from 'node:fs';
import { basename } from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import type { TestClient } from '../helpers/client.ts';
import { type FixtureServer, fixtureServer } from '../helpers/fixture-server.ts';
import { traceViewer } from '../helpers/cli-process.ts';
import { InspectorPage } from '../helpers/inspector-page.ts';
import { evaluate } from '../helpers/page.ts';
import { sharedServer, type TestServer } from '../helpers/pagewire.ts';
import { traceZip } from '../helpers/trace-zip.ts';
import { freshState, ref } from '../helpers/wire.ts';

const s = suite('trace view');
let server: TestServer;
let fixtures: FixtureServer;
let agent: TestClient;
let viewer: TestClient;
let viewerSession: string;
let inspector: InspectorPage;

const VIEWPORT = { width: 1000, height: 700 };

s.before(async () => {
  server = await sharedServer();
  fixtures = await fixtureServer();
  agent = await server.connect();
  viewer = await server.connect();
  viewerSession = (await viewer.call('session.create', { name: 'viewer', viewport: { width: 1400, height: 900 } })).session_id;
  inspector = await InspectorPage.open(server, viewer, viewerSession);
  await inspector.until(`document.body.dataset.ready`);
});
s.after(async () => {
  await viewer?.call('session.close', { session_id: viewerSession }).catch(() => {});
  agent?.close();
  viewer?.close();
});

/** The text of the selected step's part `id` (`step-result`, `step-events`…). */
const partText = (page: InspectorPage, id: string) => page.eval<string>(`document.getElementById(${JSON.stringify(id)})?.innerText ?? ''`);

/** Selects step `seq` in the timeline and waits for its details. */
async function select(page: InspectorPage, seq: number): Promise<void> {
  await page.eval(`document.querySelector('#timeline [data-seq="${seq}"]').click()`);
  await page.until(`document.querySelector('#step-title[data-seq="${seq}"]')`);
}

/** Mean of each pixel's brightest channel in `rect` (CSS px of the recorded viewport) of the frame `which` shown for the selected step. */
function frameBrightness(page: InspectorPage, which: 'before' | 'after', rect: Rect): Promise<number> {
  return page.eval<number>(`(async () => {
    const image = document.querySelector('#step-frames [data-frame=${which}] img.frame');
    await image.decode();
    const k = image.naturalWidth / ${VIEWPORT.width};
    const canvas = document.createElement('canvas');
    canvas.width = image.naturalWidth;
    canvas.height = image.naturalHeight;
    const context = canvas.getContext('2d');
    context.drawImage(image, 0, 0);
    const { data } = context.getImageData(${rect.x} * k, ${rect.y} * k, ${rect.width} * k, ${rect.height} * k);
    let sum = 0;
    for (let i = 0; i < data.length; i += 4) sum += Math.max(data[i], data[i + 1], data[i + 2]);
    return sum / (data.length / 4);
  })()`);
}

interface Rect {
  x: number;
  y: number;
  width: number;
  height: number;
}

const SECRET_TEXT = 'correct horse battery staple';
let exported: { path: string; steps: number };
let trace: InspectorPage;

s(
  'a recorded run with a refusal, a dialog and a navigation, exported, opens from ?trace=: every step, the refusal with its reason and blocker, masked frames',
  async () => {
    const created = await agent.call('session.create', { name: 'recorded', viewport: VIEWPORT, dialogs: 'accept', trace: true });
    const session_id = created.session_id;
    await agent.call('act', { session_id, action: 'navigate', url: fixtures.url('/account-security.html') });
    const first = await agent.call('observe', { session_id });
    const filled = await agent.call('act', {
      session_id,
      state_id: first.state_id,
      action: 'fill',
      ref: ref(first, 'Current password', 'textbox'),
      text: SECRET_TEXT,
    });
    assert.is(filled.status, 'completed');
    // Where the fields are (inside their borders), measured in the page, not taken from the trace.
    const inner = (id: string) =>
      evaluate<Rect>(
        server,
        created.target_id,
        `(() => { const r = document.getElementById('${id}').getBoundingClientRect(); return { x: r.x + 6, y: r.y + 6, width: r.width - 12, height: r.height - 12 }; })()`,
      );
    const [password, email] = [await inner('current'), await inner('email')];
    const remove = ref(freshState(filled), 'Delete account', 'button');
    const refused = await agent.call('act', { session_id, state_id: freshState(filled).state_id, action: 'click', ref: remove });
    assert.is(refused.error_type, 'click_intercepted');
    const dismissed = await agent.call('act', {
      session_id,
      state_id: freshState(refused).state_id,
      action: 'click',
      ref: refused.hit!.dismiss_ref!,
    });
    const confirmed = await agent.call('act', {
      session_id,
      state_id: freshState(dismissed).state_id,
      action: 'click',
      ref: ref(freshState(dismissed), 'Delete account', 'button'),
    });
    assert.ok(confirmed.events.some((event) => event.kind === 'dialog'), 'the click opened a confirm');
    await agent.call('act', {
      session_id,
      state_id: freshState(confirmed).state_id,
      action: 'click',
      ref: ref(freshState(confirmed), 'Statements', 'link'),
    });
    exported = await agent.call('trace.export', { session_id });
    assert.is(exported.steps, 7);

    trace = await InspectorPage.open(server, viewer, viewerSession, `&trace=${encodeURIComponent(basename(exported.path))}`);
    try {
      await trace.until(`document.getElementById('trace-view')?.dataset.state === 'ready'`);
      const rows = await trace.eval<string[]>(
        `[...document.querySelectorAll('#timeline [data-seq]')].map((li) => li.querySelector('.words').textContent)`,
      );
      assert.is(rows.length, exported.steps, 'every step is in the timeline');
      assert.match(rows[0]!, `act navigate ${fixtures.url('/account-security.html')} → completed`);
      assert.match(rows[2]!, /^act fill @\d+ "\[redacted\]" → completed$/);
      assert.is(
        rows[3],
        `act click ${remove} → refused: click_intercepted — covered by region "Cookie banner" ${refused.hit!.ref}; ${
          refused.hit!.dismiss_ref
        } dismisses it`,
      );
      assert.not.match(await trace.eval<string>('document.body.innerText'), SECRET_TEXT);

      // The refused step: its reason and blocker in words, the ref it aimed at lit in the observation it acted on.
      await select(trace, 4);
      const result = await partText(trace, 'step-result');
      assert.match(result, /error_type\s+click_intercepted — another element is on top/);
      assert.match(result, /blocker\s+covered by region "Cookie banner"/);
      assert.match(
        await trace.eval<string>(`document.querySelector('#step-observation .line.acted').textContent`),
        `"Delete account" ${remove}`,
      );
      assert.match(await partText(trace, 'step-diff'), 'the tree did not change');
      await trace.until(`document.querySelector('#step-frames [data-frame=before] .target')`);
      await trace.screenshot('inspector-trace.png');

      // Accepting the cookies took the banner away: the diff to the next observation says so.
      await select(trace, 5);
      assert.match(await partText(trace, 'step-diff'), /- region "Cookie banner"/);

      // The dialog and the navigation, as rows of the steps during which they came.
      await select(trace, 6);
      assert.match(await partText(trace, 'step-events'), 'dialog confirm "Delete your account?" → accepted');
      await select(trace, 7);
      assert.match(await partText(trace, 'step-events'), `navigation ${fixtures.url('/receipt.html')}`);

      // The fill's frames: the password field is the mask's black before and after, the email field beside it is not.
      await select(trace, 3);
      for (const which of ['before', 'after'] as const) {
        const masked = await frameBrightness(trace, which, password);
        const plain = await frameBrightness(trace, which, email);
        assert.ok(masked < 40, `the password field in the frame ${which} is masked (mean brightness ${masked})`);
        assert.ok(plain > 180, `the email field in the frame ${which} is drawn (mean brightness ${plain})`);
      }

      // The refusals filter keeps the refused step only.
      await trace.eval(
        `(() => { const f = document.getElementById('trace-filter'); f.value = 'short'; f.dispatchEvent(new Event('change')); })()`,
      );
      assert.equal(await trace.eval<string[]>(`[...document.querySelectorAll('#timeline [data-seq]')].map((li) => li.dataset.seq)`), ['4']);
    } finally {
      // A page left in front would keep the next tests' page in the background (no animation frames).
      await trace.close();
    }
    await agent.call('session.close', { session_id });
  },
);

s('the same file dropped on the live inspector opens the same timeline', async () => {
  await inspector.front();
  await inspector.drop(basename(exported.path), new Uint8Array(readFileSync(exported.path)));
  await inspector.until(`document.getElementById('trace-view')?.dataset.state === 'ready'`);
  assert.is(await inspector.eval<number>(`document.querySelectorAll('#timeline [data-seq]').length`), exported.steps);
});

s('the same file picked with Open trace… opens the same timeline', async () => {
  await inspector.front();
  // Shown already (the drop before): marked, so that only a new load of the view can say ready.
  await inspector.eval(`document.getElementById('trace-view').dataset.state = 'picked'`);
  await inspector.pick(exported.path);
  await inspector.until(`document.getElementById('trace-view')?.dataset.state === 'ready'`);
  assert.is(await inspector.eval<number>(`document.querySelectorAll('#timeline [data-seq]').length`), exported.steps);
});

s('pagewire trace show FILE: the saved trace opens in a browser from a viewer with no session', async () => {
  const { viewer: process, url } = await traceViewer(exported.path);
  const shown = await InspectorPage.open(server, viewer, viewerSession, '', url.href);
  await shown.until(`document.getElementById('trace-view')?.dataset.state === 'ready'`);
  assert.is(await shown.eval<number>(`document.querySelectorAll('#timeline [data-seq]').length`), exported.steps);
  await shown.close();
  process.kill('SIGTERM');
});

s('an observation that could not read a frame shows why above its tree, in the step that acted on it', async () => {
  await inspector.front();
  const observation = {
    state_id: 'st_frames',
    target_id: 'T1',
    frame_id: 'F1',
    url: 'http://127.0.0.1:1/app.html',
    title: 'App',
    tree: 'button "Save" @1\niframe "Ad" [unavailable: the frame did not answer]',
    elements: [{ ref: '@1', role: 'button', name: 'Save', visible: true, in_viewport: true }],
    frames: [
      { frame_id: 'F1', url: 'http://127.0.0.1:1/app.html', status: 'observed' },
      { frame_id: 'F2', url: 'http://localhost:1/ad.html', status: 'unavailable', reason: 'the frame did not answer' },
    ],
  };
  const at = Date.now();
  const steps = [
    { seq: 1, method: 'observe', at, duration_ms: 5, params: {}, result: observation },
    {
      seq: 2,
      method: 'act',
      at: at + 10,
      duration_ms: 5,
      acted_on: 1,
      params: { action: 'click', ref: '@1', state_id: 'st_frames' },
      result: { status: 'completed', execution: 'completed', observation: 'not_requested', postcondition: 'not_requested' },
    },
  ];
  await inspector.drop('frames.zip', traceZip({ steps }));
  await inspector.until(`document.querySelector('#timeline [data-seq="2"]')`);
  await select(inspector, 2);
  assert.is(
    await inspector.eval<string>(`document.querySelector('#step-observation [data-frame-note=unavailable]')?.textContent ?? ''`),
    'frame unavailable: http://localhost:1/ad.html (the frame did not answer)',
  );
  assert.is(await inspector.eval<number>(`document.querySelectorAll('#step-observation [data-frame-note]').length`), 1);
  await inspector.eval(`document.getElementById('back-to-live').click()`);
  await inspector.until(`!document.querySelector('.inspector').hidden && document.getElementById('trace-view').hidden`);
});

s('a trace of another version, another format, a missing entry or damaged bytes: a sentence in the page', async () => {
  await inspector.front();
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
