// ControlOrMeta follows the platform of the browser, not of the server (PROTOCOL.md §7): Meta
// when the browser says it runs on macOS, Control elsewhere. The browser here runs on Linux like
// the server; a second one is started saying macOS in its user agent (what Browser.getVersion
// reports) and reached with --connect, so only the browser's word can make the difference.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import type { TestClient } from '../helpers/client.ts';
import { launchDebuggableBrowser } from '../helpers/debuggable-browser.ts';
import { type FixtureServer, fixtureServer } from '../helpers/fixture-server.ts';
import { evaluate } from '../helpers/page.ts';
import { sharedServer, startTestServer, type TestServer } from '../helpers/pagewire.ts';
import { type ActResult, type Observation, ref } from '../helpers/wire.ts';

const MAC_USER_AGENT =
  'Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/156.0.0.0 Safari/537.36';

const s = suite('ControlOrMeta and the browser platform');
let fixtures: FixtureServer;

s.before(async () => {
  fixtures = await fixtureServer();
});

/** What the file list saw for a ControlOrMeta click and a ControlOrMeta+a, and what got selected. */
async function shortcutsOn(server: TestServer): Promise<{ click: string; press: string; selected: [number, number, number] }> {
  const client: TestClient = await server.connect();
  try {
    const { session_id } = await client.call('session.create', { name: 'platform' });
    const { target_id } = await client.call('tabs.new', { session_id, url: fixtures.url('/file-list.html') });
    const call = (params: Record<string, unknown>) => client.call<ActResult>('act', { session_id, target_id, ...params });
    let o = await client.call<Observation>('observe', { session_id, target_id });
    const first = await call({ state_id: o.state_id, action: 'click', ref: ref(o, 'budget.xlsx') });
    o = first.fresh_state!;
    const added = await call({ state_id: o.state_id, action: 'click', ref: ref(o, 'report.pdf'), modifiers: ['ControlOrMeta'] });
    assert.is(added.status, 'completed', added.error_text);
    const click = await evaluate<string>(server, target_id, `document.getElementById('status').textContent`);
    o = added.fresh_state!;
    const pressed = await call({ state_id: o.state_id, action: 'press', ref: ref(o, 'Rename'), key: 'ControlOrMeta+a' });
    assert.is(pressed.status, 'completed', pressed.error_text);
    const press = await evaluate<string>(server, target_id, `document.getElementById('status').textContent`);
    const selected = await evaluate<[number, number, number]>(
      server,
      target_id,
      `(() => { const field = document.getElementById('rename'); return [field.selectionStart, field.selectionEnd, field.value.length]; })()`,
    );
    await client.call('session.close', { session_id });
    return { click, press, selected };
  } finally {
    client.close();
  }
}

s('a browser on Linux: ControlOrMeta is Control', async () => {
  const seen = await shortcutsOn(await sharedServer());
  assert.is(seen.click, 'clicked report.pdf with Control');
  assert.is(seen.press, 'pressed a with Control');
  assert.equal(seen.selected, [0, 16, 16], 'Control+A selected the whole field');
});

s('a browser that says it runs on macOS, on a server that does not: ControlOrMeta is Meta, and select all still selects', async () => {
  const browser = await launchDebuggableBrowser([`--user-agent=${MAC_USER_AGENT}`]);
  const server = await startTestServer(['--connect', browser.endpoint]);
  try {
    const seen = await shortcutsOn(server);
    assert.is(seen.click, 'clicked report.pdf with Meta');
    assert.is(seen.press, 'pressed a with Meta');
    // On macOS select all is a menu command, which goes along with the key (keys.ts).
    assert.equal(seen.selected, [0, 16, 16], '⌘A selected the whole field');
    assert.is(server.server.host.browsers()[0]?.platform, 'mac', 'the platform is what the browser reported');
  } finally {
    await server.server.close();
  }
});

s.run();
