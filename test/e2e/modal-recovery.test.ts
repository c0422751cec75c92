// Modal state recovers from what the page and the browser do to it (PROTOCOL.md §8): a failed
// file_chooser.resolve leaves the chooser pending; a dialog already gone when dialog.handle runs
// is no_modal; and no pending dialog outlives its dialog, even when Chromium never says it closed
// (an out-of-process iframe taken out by its parent while its alert is open).
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import type { TestClient } from '../helpers/client.ts';
import { type FixtureServer, fixtureServer } from '../helpers/fixture-server.ts';
import { evaluate, tabOf } from '../helpers/page.ts';
import { startTestServer, type TestServer } from '../helpers/pagewire.ts';
import { openAloneObserved } from '../helpers/session-suite.ts';
import { onTeardown } from '../helpers/teardown.ts';
import { waitUntil } from '../helpers/wait.ts';
import { type ActResult, type Observation, ref } from '../helpers/wire.ts';

const s = suite('modal recovery');
let server: TestServer;
let fixtures: FixtureServer;
let client: TestClient;
let sessionId: string;

s.before(async () => {
  const uploads = mkdtempSync(join(tmpdir(), 'pagewire-uploads-test-'));
  writeFileSync(join(uploads, 'minutes.txt'), 'minutes of the meeting');
  onTeardown(() => rmSync(uploads, { recursive: true, force: true }));
  server = await startTestServer(['--uploads', uploads]);
  fixtures = await fixtureServer();
  client = await server.connect();
  sessionId = (await client.call('session.create', { name: 'modal-recovery' })).session_id;
});
s.after(async () => {
  client.close();
  await server.server.close();
});

const open = (path: string) => openAloneObserved({ server, fixtures, client, sessionId }, path);
function observe(targetId: string): Promise<Observation> {
  return client.call('observe', { session_id: sessionId, target_id: targetId });
}
function act(o: Observation, params: Record<string, unknown>): Promise<ActResult> {
  return client.call('act', { session_id: sessionId, target_id: o.target_id, state_id: o.state_id, ...params });
}
const status = (targetId: string) => evaluate<string>(server, targetId, `document.getElementById('status').textContent`);

s('file_chooser.resolve that fails leaves the chooser pending: nothing was uploaded, and it can be resolved again', async () => {
  let o = await open('/uploader.html');
  const opened = await act(o, { action: 'click', ref: ref(o, 'Attach a file') });
  assert.ok(opened.events.some((e) => e.kind === 'file_chooser'), JSON.stringify(opened));
  // The app switches the field to its link mode while the chooser is open: it takes no files now.
  await evaluate(server, o.target_id, `setMode('link')`);
  const failed = await client.callError('file_chooser.resolve', { session_id: sessionId, paths: ['minutes.txt'] });
  assert.is(failed.data?.error_type, 'invalid_params', failed.message);
  assert.match(failed.message, /still pending/);
  assert.is(await status(o.target_id), 'no attachment', 'nothing reached the page');
  o = await observe(o.target_id);
  const blocked = await act(o, { action: 'click', ref: ref(o, 'Upload a file instead') });
  assert.is(blocked.error_type, 'modal_blocked', "the chooser is still the tab's pending modal");
  // Back in file mode, the same chooser takes the file.
  await evaluate(server, o.target_id, `setMode('file')`);
  const resolved = await client.call('file_chooser.resolve', { session_id: sessionId, paths: ['minutes.txt'] });
  assert.equal(resolved, { uploaded_count: 1 });
  assert.is(await status(o.target_id), 'attached minutes.txt (22 bytes)');
  const none = await client.callError('file_chooser.resolve', { session_id: sessionId });
  assert.is(none.data?.error_type, 'no_modal', 'resolved once, gone');
});

s('a cancel always ends the chooser, even when the page let go of its input', async () => {
  const o = await open('/uploader.html');
  await act(o, { action: 'click', ref: ref(o, 'Attach a file') });
  await evaluate(server, o.target_id, `document.getElementById('drop').remove()`);
  assert.equal(await client.call('file_chooser.resolve', { session_id: sessionId }), { cancelled: true });
  const after = await observe(o.target_id);
  const r = await act(after, { action: 'click', ref: ref(after, 'Paste a link instead') });
  assert.is(r.status, 'completed', r.error_text);
});

s('dialog.handle on a dialog a navigation closed a moment before: no_modal, and nothing stays pending', async () => {
  const o = await open('/drafts.html');
  const opened = await act(o, { action: 'click', ref: ref(o, 'Delete Quarterly update') });
  assert.is(opened.status, 'interrupted');
  assert.is(opened.events.find((e) => e.kind === 'dialog')?.data.message, 'Delete "Quarterly update"?');
  // The race: dialog.handle has read the pending dialog and its answer is on its way when a
  // navigation (another client's, a redirect the browser follows) closes the dialog first.
  const session = tabOf(server, o.target_id).session;
  const original = session.sendRaw;
  let raced = false;
  session.sendRaw = async function (method, params, options) {
    if (method === 'Page.handleJavaScriptDialog' && !raced) {
      raced = true;
      await original.call(this, 'Page.navigate', { url: fixtures.url('/drafts.html?moved=1') });
    }
    return original.call(this, method, params, options);
  };
  let answer;
  try {
    answer = await client.request('dialog.handle', { session_id: sessionId, accept: true });
  } finally {
    session.sendRaw = original;
  }
  assert.ok(raced, 'the answer went out after the dialog was gone');
  assert.is((answer.error as { data?: { error_type?: string } } | undefined)?.data?.error_type, 'no_modal', JSON.stringify(answer));
  // The raced navigation may still be parsing the new document: read it once it shows the drafts.
  const waited = await client.call('wait', { session_id: sessionId, target_id: o.target_id, text: 'Hiring plan', timeout_ms: 10_000 });
  assert.is(waited.status, 'met');
  const after = waited.observation;
  assert.is(after.dialog, undefined);
  assert.match(after.url, /moved=1$|drafts\.html$/);
  const none = await client.callError('dialog.handle', { session_id: sessionId, accept: false });
  assert.is(none.data?.error_type, 'no_modal');
  const deleted = await act(after, { action: 'click', ref: ref(after, 'Delete Hiring plan') });
  assert.is(deleted.status, 'interrupted', 'the page works: its next dialog is held and answered');
  assert.is((await client.call('dialog.handle', { session_id: sessionId, accept: true })).action, 'accepted');
  assert.is(await status(o.target_id), '1 drafts');
});

s('an alert in an out-of-process iframe that its parent removes: the pending dialog goes with the frame', async () => {
  const o = await open('/drafts.html');
  const seen = o.elements.some((e) => e.name === 'Claim your reward')
    ? o
    : await waitUntil(() => observe(o.target_id), (x) => x.elements.some((e) => e.name === 'Claim your reward'), {
      what: 'the ad frame',
      intervalMs: 0,
    });
  const frameOf = seen.elements.find((e) => e.name === 'Claim your reward')!.frame_id;
  const claimed = await act(seen, { action: 'click', ref: ref(seen, 'Claim your reward') });
  assert.is(claimed.status, 'interrupted', JSON.stringify(claimed));
  // The host collapses the ad once engaged; Chromium reports the frame removed, and no close.
  // Bounded by time, not by a count of calls: on a loaded machine the host's removal comes later.
  await waitUntil(
    async () => (await client.call('frames.list', { session_id: sessionId, target_id: o.target_id })).frames,
    (frames) => !frames.some((frame) => frame.frame_id === frameOf),
    { what: 'the ad frame removed', timeoutMs: 20_000, intervalMs: 0 },
  );
  const after = await observe(o.target_id);
  assert.is(after.dialog, undefined, 'no dialog is held for a frame that is gone');
  assert.ok(after.elements.some((e) => e.name === 'Delete Hiring plan'), 'the page is read again');
  const none = await client.callError('dialog.handle', { session_id: sessionId, accept: true });
  assert.is(none.data?.error_type, 'no_modal');
});

s.run();
