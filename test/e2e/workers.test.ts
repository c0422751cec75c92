// A page's dedicated workers run: Chromium keeps a dedicated worker paused while a page session
// auto-attaches with waitForDebuggerOnStart and leaves workers out of its filter, so pagewire
// attaches them and lets them run (src/browser/tab.ts autoAttachParams).
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { withSession } from '../helpers/session-suite.ts';
import { type Observation, ref } from '../helpers/wire.ts';

const s = suite('workers');
const ctx = withSession(s, 'workers');

s('a page that computes in a dedicated worker gets its answer', async () => {
  const { client, sessionId, fixtures } = ctx;
  await client.call('tabs.new', { session_id: sessionId, url: fixtures.url('/report-app.html') });
  const o = await client.call<Observation>('observe', { session_id: sessionId });
  const result = await client.call('act', {
    session_id: sessionId,
    state_id: o.state_id,
    action: 'click',
    ref: ref(o, 'Compute totals'),
    wait_for: { text: 'Total: 1000' },
    timeout_ms: 5_000,
  });
  assert.is(result.status, 'verified', `${result.status}: ${result.error_text}`);
});

s.run();
