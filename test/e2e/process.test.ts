// The server as a process (PROTOCOL.md §1): the ready line, lazy browser launch, and no Chromium
// left behind after SIGTERM, SIGINT or even SIGKILL of the server.
import { existsSync } from 'node:fs';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { TestClient } from '../helpers/client.ts';
import { fixtureServer } from '../helpers/fixture-server.ts';
import { descendants, isAlive, waitUntilGone } from '../helpers/processes.ts';
import { IS_DENO, ROOT, startServerProcess } from '../helpers/server-process.ts';

const s = suite('server process');

s.before(() => {
  if (!IS_DENO) assert.ok(existsSync(`${ROOT}dist/src/main.js`), 'dist/src/main.js is missing: run `npm run build`');
});

s('the built server reads incrementally: its in-page monitor runs, so an unchanged page is not read again', async () => {
  // The in-page module is made from the running code: under Node that is the compiled dist/, whose
  // output differs from the sources' (a class's self-reference once became a missing alias there).
  const started = await startServerProcess(['--port', '0', '--token', 'process-incremental']);
  const fixtures = await fixtureServer();
  const client = await TestClient.connect(started.line.replace('pagewire listening on ', ''));
  try {
    const { session_id } = await client.call('session.create');
    const { target_id } = await client.call('tabs.new', { session_id, url: fixtures.url('/form.html') });
    for (let i = 0; i < 4; i++) await client.call('observe', { session_id, target_id });
    const { diagnostics } = await client.call('server.info');
    assert.ok(diagnostics.frame_reads_reused >= 2, `reads reused: ${JSON.stringify(diagnostics)}`);
  } finally {
    client.close();
    started.kill('SIGTERM');
    await started.exit;
  }
});

for (const signal of ['SIGTERM', 'SIGINT'] as const) {
  s(`prints the ready line, launches a browser on demand, and ${signal} leaves no Chromium`, async () => {
    const started = await startServerProcess(['--port', '0', '--token', 'process-test-token']);
    assert.match(started.line, /^pagewire listening on ws:\/\/127\.0\.0\.1:\d+\/\?token=process-test-token$/);
    assert.is(descendants(started.pid).length, 0, 'no browser before the first call that needs one');
    const url = started.line.replace('pagewire listening on ', '');
    const client = await TestClient.connect(url);
    await client.call('session.create');
    const browsers = descendants(started.pid).map((p) => p.pid);
    assert.ok(browsers.length > 0, 'a browser runs under the server');
    started.kill(signal);
    assert.is(await started.exit, 0, 'exit code 0');
    assert.equal(await waitUntilGone(browsers, 10_000), [], 'every browser process is gone');
    client.close();
  });
}

s('a server whose stderr reader went away still logs nothing into a loop, and SIGTERM closes its browser', async () => {
  // The process that started the server died: every later log line meets a closed pipe. On Node
  // that failed write became an uncaught error, which was logged, failed again, and so on, a loop
  // that starved the event loop: SIGTERM went unhandled and the browser stayed.
  const started = await startServerProcess(['--port', '0', '--token', 'stderr-gone-token', '--log-level', 'debug']);
  const client = await TestClient.connect(started.line.replace('pagewire listening on ', ''));
  // A starved server answers nothing: the calls below get a deadline instead of hanging the run.
  const within = async <T>(promise: Promise<T>, what: string, ms = 20_000): Promise<T> => {
    let timer: ReturnType<typeof setTimeout> | undefined;
    const late = new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new Error(`${what}: nothing within ${ms} ms`)), ms)));
    try {
      return await Promise.race([promise, late]);
    } finally {
      clearTimeout(timer);
    }
  };
  try {
    await started.closeStderr();
    // Debug logging writes a line for every CDP message, so the browser's launch logs hundreds.
    const { session_id } = await within(client.call('session.create'), 'session.create');
    const fixtures = await fixtureServer();
    const { target_id } = await within(client.call('tabs.new', { session_id, url: fixtures.url('/form.html') }), 'tabs.new');
    const observed = await within(client.call('observe', { session_id, target_id }), 'observe');
    assert.ok(observed.elements.length > 0, 'the server still serves');
    const browsers = descendants(started.pid).map((p) => p.pid);
    assert.ok(browsers.length > 0, 'a browser runs under the server');
    started.kill('SIGTERM');
    assert.is(await within(started.exit, 'exit after SIGTERM', 15_000), 0, 'the server exits 0 on SIGTERM');
    assert.equal(await waitUntilGone(browsers, 10_000), [], 'every browser process is gone');
  } finally {
    client.close();
    if (isAlive(started.pid)) started.kill('SIGKILL');
  }
});

s('SIGKILL of the server: the pipe closes and the browser exits by itself', async () => {
  const started = await startServerProcess(['--port', '0', '--token', 'kill-test-token']);
  const url = started.line.replace('pagewire listening on ', '');
  const client = await TestClient.connect(url);
  await client.call('session.create');
  const browsers = descendants(started.pid).map((p) => p.pid);
  assert.ok(browsers.length > 0);
  started.kill('SIGKILL');
  await started.exit;
  assert.equal(await waitUntilGone(browsers, 15_000), [], 'no orphan browser after SIGKILL');
  client.close();
});

s('--no-auth prints the URL without a token; --no-auth on a public host is refused', async () => {
  const started = await startServerProcess(['--port', '0', '--no-auth']);
  assert.match(started.line, /^pagewire listening on ws:\/\/127\.0\.0\.1:\d+\/$/);
  started.kill('SIGTERM');
  assert.is(await started.exit, 0);
  const refused = startServerProcess(['--port', '0', '--no-auth', '--host', '0.0.0.0']);
  try {
    await refused;
    assert.unreachable('must not start');
  } catch (error) {
    assert.match(String(error), /no-auth/);
  }
});

s('flags can come from PAGEWIRE_* variables', async () => {
  const started = await startServerProcess([], { PAGEWIRE_PORT: '0', PAGEWIRE_TOKEN: 'env-token-abc,second-token-xyz' });
  assert.match(started.line, /\?token=env-token-abc$/);
  const url = started.line.replace('pagewire listening on ', '').replace('env-token-abc', 'second-token-xyz');
  const client = await TestClient.connect(url);
  const info = await client.call('server.info');
  assert.is(info.name, 'pagewire');
  client.close();
  started.kill('SIGTERM');
  assert.is(await started.exit, 0);
});

s.run();
