// The browser's platform, read from the user agent it reports (Browser.getVersion), decides what
// ControlOrMeta stands for (PROTOCOL.md §7): the mapping, and that a Browser started over a
// scripted peer takes the peer's word for it whatever the server runs on.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { modifierMask } from '../../src/actions/input.ts';
import { keyEventsFor, MODIFIER_BITS } from '../../src/actions/keys.ts';
import { Browser } from '../../src/browser/browser.ts';
import { platformOfUserAgent } from '../../src/browser/platform.ts';
import { Connection } from '../../src/cdp/connection.ts';
import { FakeCdpPeer } from '../helpers/fake-cdp.ts';

const AGENTS = {
  mac: 'Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/156.0.0.0 Safari/537.36',
  macHeadless:
    'Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/537.36 (KHTML, like Gecko) HeadlessChrome/156.0.0.0 Safari/537.36',
  windows: 'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/156.0.0.0 Safari/537.36',
  linux: 'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) HeadlessChrome/156.0.0.0 Safari/537.36',
  chromeos: 'Mozilla/5.0 (X11; CrOS x86_64 14541.0.0) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/156.0.0.0 Safari/537.36',
  android: 'Mozilla/5.0 (Linux; Android 10; K) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/156.0.0.0 Mobile Safari/537.36',
  iphone: 'Mozilla/5.0 (iPhone; CPU iPhone OS 17_0 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) CriOS/156.0 Mobile/15E148',
};

const s = suite('browser platform');

s('the user agent names the platform; only macOS makes ControlOrMeta Meta', () => {
  assert.is(platformOfUserAgent(AGENTS.mac), 'mac');
  assert.is(platformOfUserAgent(AGENTS.macHeadless), 'mac');
  assert.is(platformOfUserAgent(AGENTS.windows), 'windows');
  assert.is(platformOfUserAgent(AGENTS.linux), 'linux');
  assert.is(platformOfUserAgent(AGENTS.chromeos), 'chromeos', 'says Linux-like X11 too');
  assert.is(platformOfUserAgent(AGENTS.android), 'android', 'says Linux too');
  assert.is(platformOfUserAgent(AGENTS.iphone), 'other', '"like Mac OS X" is not macOS');
  assert.is(platformOfUserAgent(''), 'other');
  for (const [name, agent] of Object.entries(AGENTS)) {
    const platform = platformOfUserAgent(agent);
    const primary = name.startsWith('mac') ? MODIFIER_BITS.Meta : MODIFIER_BITS.Control;
    assert.is(modifierMask(['ControlOrMeta'], platform), primary, `a click's ControlOrMeta on ${name}`);
    assert.is(modifierMask(['ControlOrMeta', 'Shift', 'Alt'], platform), primary | MODIFIER_BITS.Shift | MODIFIER_BITS.Alt, name);
    const down = keyEventsFor('ControlOrMeta+a', platform).find((event) => event.key === 'a')!;
    assert.is(down.modifiers, primary, `a press's ControlOrMeta on ${name}`);
    assert.equal(down.commands, ['selectAll'], `select all travels with the key on ${name}`);
  }
});

s("a Browser takes the platform its peer reports, not the server's", async () => {
  for (const [agent, platform] of [[AGENTS.mac, 'mac'], [AGENTS.windows, 'windows'], [AGENTS.linux, 'linux']] as const) {
    const peer = new FakeCdpPeer();
    peer.answer('Browser.getVersion', () => ({
      result: { protocolVersion: '1.3', product: 'Chrome/156.0.0.0', revision: '', userAgent: agent, jsVersion: '15.6' },
    }));
    for (const method of ['Browser.setDownloadBehavior', 'Target.setDiscoverTargets', 'Target.setAutoAttach']) {
      peer.answer(method, () => ({ result: {} }));
    }
    const connection = new Connection(peer);
    const browser = await Browser.start(connection);
    assert.is(browser.platform, platform);
    connection.close();
  }
});

s.run();
