// The endpoint pool without a browser: fake CDP peers stand for the farm's browsers. Placement by
// fewest sessions, a lost endpoint and its reconnection, client-named endpoints under
// --allow-endpoint, the domain policy's need of a loopback browser, and shutdown that never asks a
// browser to exit.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { isServerError, type ServerError } from '../../src/errors.ts';
import { EndpointPool } from '../../src/sessions/endpoint-pool.ts';
import type { EndpointSpec } from '../../src/sessions/endpoint-spec.ts';
import { FakeCdpPeer, until } from '../helpers/fake-cdp.ts';

const s = suite('endpoint pool');

/** A browser as Browser.start finds it: every start-up command answered. */
function fakeBrowser(): FakeCdpPeer {
  const peer = new FakeCdpPeer();
  peer.answer('Browser.getVersion', () => ({
    result: { product: 'Chrome/140', userAgent: 'Mozilla/5.0 (X11; Linux x86_64)', protocolVersion: '1.3', revision: '', jsVersion: '' },
  }));
  for (const method of ['Browser.setDownloadBehavior', 'Target.setDiscoverTargets', 'Target.setAutoAttach']) {
    peer.answer(method, () => ({ result: {} }));
  }
  return peer;
}

/** A farm of fake browsers by URL; a URL that is `down` refuses the connection. */
function farm(urls: string[]) {
  const peers = new Map<string, FakeCdpPeer[]>();
  const down = new Set<string>();
  const connect = (spec: EndpointSpec) => {
    if (down.has(spec.url) || !urls.includes(spec.url)) return Promise.reject(new Error(`ECONNREFUSED ${spec.url}`));
    const peer = fakeBrowser();
    peers.set(spec.url, [...(peers.get(spec.url) ?? []), peer]);
    return Promise.resolve(peer);
  };
  const specs = urls.map((url) => ({ url, headers: {} }));
  return { peers, down, connect, specs, latest: (url: string) => peers.get(url)!.at(-1)! };
}

async function refusal(promise: Promise<unknown>): Promise<ServerError> {
  try {
    await promise;
  } catch (error) {
    if (isServerError(error)) return error;
    throw error;
  }
  throw new Error('expected a refusal');
}

const A = 'http://127.0.0.1:9001';
const B = 'http://127.0.0.1:9002';
const C = 'ws://10.0.0.3:3000/?token=t0ken';

s('sessions go to the live endpoint with the fewest; a release frees its place', async () => {
  const f = farm([A, B, C]);
  const pool = new EndpointPool({ specs: f.specs, allow: [], connect: f.connect });
  const placed: string[] = [];
  for (let i = 0; i < 6; i++) placed.push((await pool.place(`s${i}`, { needsLocalBrowser: false })).endpoint.id);
  assert.equal(placed, ['e1', 'e2', 'e3', 'e1', 'e2', 'e3']);
  pool.release('s4');
  assert.is((await pool.place('s6', { needsLocalBrowser: false })).endpoint.id, 'e2');
  // Placements at once spread as well: each is counted where it goes before the next chooses.
  const together = await Promise.all(['t1', 't2', 't3'].map((id) => pool.place(id, { needsLocalBrowser: false })));
  assert.equal(together.map((placement) => placement.endpoint.id).sort(), ['e1', 'e2', 'e3']);
  for (const id of ['t1', 't2', 't3']) pool.release(id);
  assert.equal(pool.describe().map((e) => [e.id, e.url, e.state, e.sessions]), [
    ['e1', `${A}/`, 'live', 2],
    ['e2', `${B}/`, 'live', 2],
    ['e3', 'ws://10.0.0.3:3000/', 'live', 2],
  ], 'the token in the query is never shown');
  pool.shutdown();
});

s('a lost endpoint: one lost event, no placement there while it is down, live again once it answers', async () => {
  const f = farm([A, B]);
  const pool = new EndpointPool({ specs: f.specs, allow: [], connect: f.connect });
  const lost: string[] = [];
  pool.events.on('lost', ({ endpoint, reason }) => lost.push(`${endpoint.id}: ${reason}`));
  const first = await pool.place('s1', { needsLocalBrowser: false });
  assert.is(first.endpoint.id, 'e1');
  f.down.add(A);
  f.latest(A).drop('browser WebSocket closed (1006)');
  await until(() => lost.length === 1);
  assert.equal(lost, ['e1: browser WebSocket closed (1006)']);
  pool.release('s1'); // the registry closes the endpoint's sessions
  assert.is(pool.describe()[0]!.state, 'lost');
  for (const id of ['s2', 's3']) assert.is((await pool.place(id, { needsLocalBrowser: false })).endpoint.id, 'e2');
  f.down.delete(A);
  await until(() => pool.describe()[0]!.state === 'live', 5_000);
  assert.is((await pool.place('s4', { needsLocalBrowser: false })).endpoint.id, 'e1', 'back, with the fewest');
  assert.is(f.peers.get(A)!.length, 2, 'connected again once');
  pool.shutdown();
});

s('none live: browser_unavailable naming each endpoint', async () => {
  const f = farm([A]);
  f.down.add(A);
  const pool = new EndpointPool({ specs: f.specs, allow: [], connect: f.connect });
  const error = await refusal(pool.place('s1', { needsLocalBrowser: false }));
  assert.is(error.type, 'browser_unavailable');
  assert.is(error.details['reason'], 'no_live_endpoint');
  assert.match(error.message, /e1 \(http:\/\/127\.0\.0\.1:9001\/\) lost/);
  pool.shutdown();
});

s('a policed session goes only to a loopback endpoint', async () => {
  const f = farm([C, A]);
  const pool = new EndpointPool({ specs: f.specs, allow: [], connect: f.connect });
  for (const id of ['s1', 's2']) assert.is((await pool.place(id, { needsLocalBrowser: true })).endpoint.id, 'e2');
  const remoteOnly = farm([C]);
  const remote = new EndpointPool({ specs: remoteOnly.specs, allow: [], connect: remoteOnly.connect });
  const error = await refusal(remote.place('s1', { needsLocalBrowser: true }));
  assert.is(error.details['reason'], 'policy_needs_local_browser');
  assert.not.match(error.message, /t0ken/);
  pool.shutdown();
  remote.shutdown();
});

s('a client names an endpoint only under --allow-endpoint; its endpoint goes with its last session', async () => {
  const f = farm([A, C]);
  const closed = new EndpointPool({ specs: [], allow: [], connect: f.connect });
  const forbidden = await refusal(closed.place('s1', { endpoint: A, needsLocalBrowser: false }));
  assert.is(forbidden.type, 'forbidden');
  assert.match(forbidden.message, /--allow-endpoint/);

  const pool = new EndpointPool({ specs: [], allow: ['http://127.0.0.1:*', 'ws://10.*/**'], connect: f.connect });
  assert.is((await refusal(pool.place('s1', { endpoint: 'http://localhost:9001', needsLocalBrowser: false }))).type, 'forbidden');
  const userinfo = await refusal(pool.place('s1', { endpoint: 'http://127.0.0.1:9001@10.0.0.9/', needsLocalBrowser: false }));
  assert.is(userinfo.type, 'invalid_params');
  const policed = await refusal(pool.place('s1', { endpoint: C, needsLocalBrowser: true }));
  assert.is(policed.details['reason'], 'policy_needs_local_browser');
  const unreachable = await refusal(pool.place('s1', { endpoint: 'http://127.0.0.1:9009', needsLocalBrowser: false }));
  assert.is(unreachable.type, 'browser_unavailable');
  assert.equal(pool.describe(), [], 'nothing kept of an endpoint that could not be reached');

  // c1 was the unreachable one's.
  for (const id of ['s2', 's3']) assert.is((await pool.place(id, { endpoint: A, needsLocalBrowser: false })).endpoint.id, 'c2');
  assert.is((await pool.place('s4', { endpoint: C, needsLocalBrowser: false })).endpoint.id, 'c3');
  pool.release('s2');
  assert.equal(pool.describe().map((e) => [e.id, e.sessions]), [['c2', 1], ['c3', 1]]);
  pool.release('s3');
  assert.equal(pool.describe().map((e) => e.id), ['c3']);
  pool.shutdown();
  closed.shutdown();
});

s('shutdown closes our connections and never asks a browser to exit', async () => {
  const f = farm([A, B]);
  const pool = new EndpointPool({ specs: f.specs, allow: [], connect: f.connect });
  await pool.place('s1', { needsLocalBrowser: false });
  pool.shutdown();
  for (const url of [A, B]) assert.is(f.latest(url).lastSent('Browser.close'), undefined);
  assert.is((await refusal(pool.place('s2', { needsLocalBrowser: false }))).type, 'browser_unavailable');
});

s.run();
