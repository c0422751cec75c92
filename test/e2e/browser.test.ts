// Browser lifecycle: a missing browser is a clear browser_unavailable, --connect attaches to a
// browser someone else runs (and never closes it), and a browser that dies is replaced.
import process from 'node:process';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { findBrowser } from '../../src/runtime/browser-process.ts';
import { isAlive } from '../helpers/processes.ts';
import { parseConfig } from '../../src/config.ts';
import { startServer } from '../../src/server.ts';
import { createLogger } from '../../src/util/log.ts';
import { TestClient } from '../helpers/client.ts';
import { launchDebuggableBrowser } from '../helpers/debuggable-browser.ts';
import { startTestServer } from '../helpers/pagewire.ts';
import { onTeardown } from '../helpers/teardown.ts';

const s = suite('browser lifecycle');

s('a browser path that does not exist: browser_unavailable that says how to fix it', async () => {
  const server = await startTestServer(['--browser', '/nonexistent/chromium']);
  const client = await server.connect();
  const error = await client.callError('session.create');
  assert.is(error.code, -32009);
  assert.is(error.data?.error_type, 'browser_unavailable');
  assert.match(error.message, /apt-get install chromium/);
  assert.match(error.message, /--browser PATH/);
  // The server stays usable and tries again on the next call.
  const again = await client.callError('tabs.list');
  assert.is(again.data?.error_type, 'browser_unavailable');
  const info = await client.call('server.info');
  assert.is(info.name, 'pagewire');
  client.close();
  await server.server.close();
});

s('findBrowser prefers an explicit path, then /usr/bin/chromium', () => {
  assert.is(findBrowser(undefined, ''), '/usr/bin/chromium');
  assert.is(findBrowser('/usr/bin/chromium'), '/usr/bin/chromium');
  assert.throws(() => findBrowser('/no/such/browser'), /apt-get install chromium/);
});

s('--connect http://127.0.0.1:PORT attaches to a running browser and leaves it running', async () => {
  const { process: browser, endpoint } = await launchDebuggableBrowser();
  // The CDP trace (debug log) shows what the server asked of the browser.
  const config = parseConfig(['--port', '0', '--token', 'connect-test', '--connect', endpoint, '--log-level', 'debug'], {});
  const trace: string[] = [];
  const running = await startServer(config, {
    runtime: `node ${process.version}`,
    log: createLogger({ level: 'debug', sink: (line) => trace.push(line) }),
  });
  onTeardown(() => running.close());
  const client = await TestClient.connect(`${running.url}?token=connect-test`);
  const { session_id } = await client.call('session.create');
  const { tabs } = await client.call('tabs.list', { session_id });
  assert.is(tabs.length, 1);
  client.close();
  await running.close();
  assert.ok(trace.some((line) => line.includes('Target.disposeBrowserContext')), 'the trace shows the shutdown');
  assert.not.ok(trace.some((line) => line.includes('"method":"Browser.close"')), 'never asked to exit');
  assert.ok(isAlive(browser.pid!), 'a browser we only connected to is not closed');
});

s('a browser that dies is replaced on the next call; its sessions are gone', async () => {
  const server = await startTestServer();
  const client = await server.connect();
  const { session_id } = await client.call('session.create');
  const before = server.server.host.current!;
  const lost = new Promise<void>((resolve) => server.server.host.events.on('lost', () => resolve()));
  // Kill the browser process under the server's feet.
  await before.connection.root.send('Browser.crash').catch(() => {});
  await lost;
  const gone = await client.callError('tabs.list', { session_id });
  assert.is(gone.data?.error_type, 'session_not_found');
  const fresh = await client.call('session.create');
  assert.ok(fresh.session_id);
  assert.is(server.server.host.launches, 2);
  client.close();
  await server.server.close();
});

s.run();
