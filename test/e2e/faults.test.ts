// Faults (issue 7): a crashed or killed renderer, a killed browser, a page in an endless loop, a
// socket closed in the middle of an act, and the server's own CDP pipe closed. Each must end
// pending calls promptly with a clear word, tell subscribers, recover or fail clearly, and leave
// no Chromium process behind.
import process from 'node:process';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { type FixtureServer, fixtureServer } from '../helpers/fixture-server.ts';
import { evaluate, tabOf } from '../helpers/page.ts';
import { descendants, isAlive, waitUntilGone } from '../helpers/processes.ts';
import { startTestServer, type TestServer } from '../helpers/pagewire.ts';
import type { TestClient } from '../helpers/client.ts';
import { nextEvent, type Observation } from '../helpers/wire.ts';

const s = suite('faults');

let fixtures: FixtureServer;

s.before(async () => {
  fixtures = await fixtureServer();
});

async function setup(server: TestServer, path: string): Promise<{ client: TestClient; sessionId: string; o: Observation }> {
  const client = await server.connect();
  const { session_id } = await client.call('session.create', { name: 'faults' });
  await client.call('tabs.new', { session_id, url: fixtures.url(path) });
  const o = await client.call('observe', { session_id });
  return { client, sessionId: session_id, o };
}

s('a renderer crash: a crash event, acts on the dead page end at once, the tab can be reloaded', async () => {
  const server = await startTestServer();
  const { client, sessionId, o } = await setup(server, '/act.html');
  await client.call('events.subscribe', { session_id: sessionId, kinds: ['crash'] });
  const crash = nextEvent(client, 'crash');
  tabOf(server, o.target_id).session.send('Page.crash').catch(() => {});
  assert.is((await crash).data.scope, 'renderer');
  const started = Date.now();
  const r = await client.call('act', {
    session_id: sessionId,
    state_id: o.state_id,
    action: 'click',
    ref: o.elements[0]!.ref,
    timeout_ms: 20_000,
  });
  assert.is.not(r.status, 'completed');
  assert.ok(Date.now() - started < 10_000, `ended in ${Date.now() - started} ms`);
  const reloaded = await client.call('act', {
    session_id: sessionId,
    state_id: (await client.call('observe', { session_id: sessionId })).state_id,
    action: 'navigate',
    url: fixtures.url('/child.html'),
  });
  assert.is(reloaded.status, 'completed');
  client.close();
  await server.server.close();
});

s('a killed renderer process is a crash too', async () => {
  const server = await startTestServer();
  const { client, sessionId } = await setup(server, '/child.html');
  await client.call('events.subscribe', { session_id: sessionId, kinds: ['crash'] });
  const browserPid = server.server.host.pid!;
  const renderers = descendants(browserPid).filter((p) => p.comm.includes('chrom'));
  assert.ok(renderers.length > 0);
  const crash = nextEvent(client, 'crash');
  // Kill every renderer: the tab's is among them (one renderer per site, maybe per tab).
  for (const renderer of renderers) {
    try {
      const cmdline = (await import('node:fs')).readFileSync(`/proc/${renderer.pid}/cmdline`, 'utf8');
      if (cmdline.includes('--type=renderer')) process.kill(renderer.pid, 'SIGKILL');
    } catch {
      // already gone
    }
  }
  const event = await crash;
  assert.is(event.data.scope, 'renderer');
  client.close();
  await server.server.close();
});

s(
  'the browser process killed: pending calls end promptly, crash and session_closed reach subscribers, the next call gets a fresh browser, nothing is left',
  async () => {
    const server = await startTestServer();
    const { client, sessionId, o } = await setup(server, '/act.html');
    await client.call('events.subscribe', { session_id: sessionId, kinds: ['crash', 'session_closed'] });
    const browserPid = server.server.host.pid!;
    const family = [browserPid, ...descendants(browserPid).map((p) => p.pid)];
    const pending = client.call('act', {
      session_id: sessionId,
      state_id: o.state_id,
      action: 'click',
      ref: o.elements[0]!.ref,
      wait_for: { text: 'never shows up' },
      timeout_ms: 30_000,
    });
    const crash = nextEvent(client, 'crash');
    const closed = nextEvent(client, 'session_closed');
    // Let the act reach its wait, then kill the browser under it.
    for (
      let i = 0;
      i < 500 && (await evaluate<string>(server, o.target_id, `document.getElementById('status').textContent`)) !== 'clicked 1';
      i++
    );
    const started = Date.now();
    process.kill(browserPid, 'SIGKILL');
    const r = await pending;
    assert.ok(Date.now() - started < 5_000, `the act ended ${Date.now() - started} ms after the kill`);
    assert.is.not(r.status, 'completed');
    assert.is((await crash).data.scope, 'browser');
    assert.match(String((await closed).data.reason), /browser_gone/);
    assert.equal(await waitUntilGone(family, 10_000), [], 'the dead browser left nothing behind');
    const gone = await client.callError('observe', { session_id: sessionId });
    assert.is(gone.data?.error_type, 'session_not_found');
    const fresh = await client.call('session.create');
    assert.ok(fresh.session_id);
    assert.ok(server.server.host.pid !== browserPid && isAlive(server.server.host.pid!));
    client.close();
    await server.server.close();
  },
);

s('a page in an endless loop: observe answers within its budget, act times out, cancel and tabs.close work', async () => {
  const server = await startTestServer();
  const { client, sessionId, o } = await setup(server, '/busy.html');
  await evaluate(server, o.target_id, 'hangSoon()');
  const act = await client.call('act', {
    session_id: sessionId,
    state_id: o.state_id,
    action: 'click',
    ref: o.elements[0]!.ref,
    timeout_ms: 2_000,
  });
  assert.is(act.status, 'action_failed');
  assert.is(act.error_type, 'timeout');
  const started = Date.now();
  const stuck = await client.call('observe', { session_id: sessionId });
  assert.ok(Date.now() - started < 6_000, `observe took ${Date.now() - started} ms`);
  assert.is(stuck.frames[0]!.status, 'unavailable');
  const running = client.call('observe', { session_id: sessionId });
  assert.equal(await client.call('cancel', { session_id: sessionId }), { status: 'cancellation_requested' });
  const cancelled = await running.then(() => undefined, (error: { type?: string }) => error.type);
  assert.ok(cancelled === 'operation_cancelled' || cancelled === undefined);
  const { tabs } = await client.call('tabs.list', { session_id: sessionId });
  assert.equal(await client.call('tabs.close', { session_id: sessionId, target_id: o.target_id }), { closed: true });
  assert.is(tabs.length, 2);
  client.close();
  await server.server.close();
});

s('the socket closed in the middle of an act: the act ends by itself, the session lives on for the next client', async () => {
  const server = await startTestServer();
  const { client, sessionId, o } = await setup(server, '/act.html');
  client.socket.send(
    JSON.stringify({
      jsonrpc: '2.0',
      id: 99,
      method: 'act',
      params: {
        session_id: sessionId,
        state_id: o.state_id,
        action: 'click',
        ref: o.elements[0]!.ref,
        wait_for: { text: 'never' },
        timeout_ms: 1_500,
      },
    }),
  );
  for (
    let i = 0;
    i < 500 && (await evaluate<string>(server, o.target_id, `document.getElementById('status').textContent`)) !== 'clicked 1';
    i++
  );
  client.close();
  await client.closed();
  const again = await server.connect();
  // The queued call runs after the orphaned act finishes (within its 1.5 s budget).
  const next = await again.call('observe', { session_id: sessionId });
  assert.match(next.tree, /^ *"clicked 1"$/m);
  again.close();
  await server.server.close();
});

s("the server's own CDP pipe closed: sessions end with a crash event, the browser is stopped, the next call relaunches", async () => {
  const server = await startTestServer();
  const { client, sessionId } = await setup(server, '/child.html');
  await client.call('events.subscribe', { session_id: sessionId, kinds: ['crash', 'session_closed'] });
  const browserPid = server.server.host.pid!;
  const family = [browserPid, ...descendants(browserPid).map((p) => p.pid)];
  const closed = nextEvent(client, 'session_closed');
  server.server.host.current!.connection.close('pipe closed by the test');
  await closed;
  assert.equal(await waitUntilGone(family, 10_000), [], 'the browser behind the closed pipe was stopped');
  const fresh = await client.call('session.create');
  assert.ok(fresh.session_id);
  client.close();
  await server.server.close();
});

s.run();
