// The network log's bookkeeping (src/sessions/network-log.ts), fed by hand the way the Network
// domain and the request interception feed it.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import type { CdpSession } from '../../src/cdp/session.ts';
import { NetworkLog } from '../../src/sessions/network-log.ts';
import type { NetworkEntry } from '../../src/wire/index.ts';

const s = suite('network log');

const page = { id: 'P' } as CdpSession;
const worker = { id: 'W' } as CdpSession;

function log(perTab = 500) {
  const completed: NetworkEntry[] = [];
  const network = new NetworkLog({
    tabOf: (session) => (session === page ? 'T1' : undefined),
    showUrl: (url) => url.replace(/\?.*$/, ''),
    completed: (entry) => completed.push({ ...entry }),
    perTab,
    now: () => 1_000,
  });
  return { network, completed };
}

const hop = (requestId: string, url: string, extra: Partial<{ method: string; resourceType: string; timestamp: number }> = {}) => ({
  requestId,
  method: extra.method ?? 'GET',
  url,
  resourceType: extra.resourceType ?? 'Fetch',
  frameId: 'F1',
  wallTime: 5_000,
  timestamp: extra.timestamp ?? 10,
});

s('a request: pending, then answered and finished, with bytes and duration; URLs as shown', () => {
  const { network, completed } = log();
  network.started(page, hop('r1', 'http://a.test/api/save?token=x', { method: 'POST' }));
  assert.equal(network.list().entries.map((e) => e.state), ['pending']);
  network.responded(page, 'r1', 500);
  network.finished(page, 'r1', { timestamp: 10.25, bytes: 321 });
  assert.equal(completed, [
    {
      seq: 1,
      target_id: 'T1',
      frame_id: 'F1',
      method: 'POST',
      url: 'http://a.test/api/save',
      resource_type: 'fetch',
      state: 'finished',
      time: 5_000,
      status: 500,
      bytes: 321,
      duration_ms: 250,
    },
  ]);
});

s('a redirect ends one hop with its 3xx and the next hop starts under the same request id', () => {
  const { network } = log();
  network.started(page, hop('r1', 'http://a.test/old'));
  network.finished(page, 'r1', { timestamp: 10.1, status: 302 });
  network.started(page, hop('r1', 'http://a.test/new', { timestamp: 10.1 }));
  network.finished(page, 'r1', { timestamp: 10.2, bytes: 10 });
  assert.equal(network.list().entries.map((e) => [e.url, e.status, e.state]), [
    ['http://a.test/old', 302, 'finished'],
    ['http://a.test/new', undefined, 'finished'],
  ]);
});

s('a refusal of the interception: its own entry without the Network domain, the rule on the entry with it (either order)', () => {
  const { network } = log();
  const blocked = {
    session: page,
    url: 'http://ads.test/p.png',
    method: 'GET',
    resourceType: 'Image',
    frameId: 'F1',
    rule: '--block-domain ads.test',
  };
  network.blocked({ ...blocked, networkId: 'n1' }, false);
  assert.equal(network.list().entries[0], {
    seq: 1,
    target_id: 'T1',
    frame_id: 'F1',
    method: 'GET',
    url: 'http://ads.test/p.png',
    resource_type: 'image',
    state: 'failed',
    time: 1_000,
    failure: 'blocked',
    blocked_by: '--block-domain ads.test',
  });
  // Recording: the Network domain announces it first, or right after the refusal.
  network.started(page, hop('n2', 'http://ads.test/a'));
  network.blocked({ ...blocked, networkId: 'n2' }, true);
  network.failed(page, 'n2', { timestamp: 11, errorText: 'net::ERR_BLOCKED_BY_CLIENT' });
  network.blocked({ ...blocked, networkId: 'n3' }, true);
  network.started(page, hop('n3', 'http://ads.test/b'));
  network.failed(page, 'n3', { timestamp: 11, errorText: 'net::ERR_BLOCKED_BY_CLIENT' });
  assert.equal(network.list({ since: 1 }).entries.map((e) => [e.url, e.failure, e.blocked_by]), [
    ['http://ads.test/a', 'blocked', '--block-domain ads.test'],
    ['http://ads.test/b', 'blocked', '--block-domain ads.test'],
  ]);
});

s('a connection the proxy refused: the rule goes on a pending WebSocket of that host and port, else an entry of its own', () => {
  const { network } = log();
  network.started(page, { ...hop('w1', 'ws://chat.test:8080/live', { resourceType: 'WebSocket' }), timestamp: NaN });
  network.refusedConnection('chat.test', 8080, '--block-domain chat.test');
  network.failed(page, 'w1', { timestamp: 12, errorText: 'net::ERR_CONNECTION_CLOSED (before the handshake)' });
  network.refusedConnection('other.test', 443, '--block-domain other.test');
  assert.equal(network.list().entries.map((e) => [e.method, e.url, e.failure, e.blocked_by, e.target_id]), [
    ['GET', 'ws://chat.test:8080/live', 'blocked', '--block-domain chat.test', 'T1'],
    ['CONNECT', 'other.test:443', 'blocked', '--block-domain other.test', undefined],
  ]);
});

s('each tab keeps its last N entries, the oldest dropped and counted; workers have a ring of their own', () => {
  const { network } = log(3);
  for (let i = 1; i <= 5; i++) network.started(page, hop(`p${i}`, `http://a.test/${i}`));
  network.started(worker, hop('w1', 'http://a.test/sw'));
  const tab = network.list({ targetId: 'T1' });
  assert.equal([tab.entries.map((e) => e.url), tab.dropped, tab.last_seq], [
    ['http://a.test/3', 'http://a.test/4', 'http://a.test/5'],
    2,
    6,
  ]);
  assert.equal(network.list().entries.map((e) => e.url), ['http://a.test/3', 'http://a.test/4', 'http://a.test/5', 'http://a.test/sw']);
  assert.equal(network.list({ since: 4 }).entries.map((e) => e.seq), [5, 6]);
  // A dropped entry's later events are ignored.
  network.finished(page, 'p1', { timestamp: 20 });
  assert.not.ok(network.list().entries.some((e) => e.url === 'http://a.test/1'));
});

s('the entries of closed tabs stay listed for the last 8 closed tabs', () => {
  const { network } = log();
  const tabs = Array.from({ length: 10 }, (_, i) => ({ id: `S${i}` }) as CdpSession);
  const many = new NetworkLog({ tabOf: (session) => `T${session.id}`, showUrl: (url) => url });
  tabs.forEach((session, i) => many.started(session, hop(`r${i}`, `http://a.test/${i}`)));
  tabs.forEach((session) => many.tabClosed(`T${session.id}`));
  assert.equal(many.list().entries.map((e) => e.url), [
    'http://a.test/2',
    'http://a.test/3',
    'http://a.test/4',
    'http://a.test/5',
    'http://a.test/6',
    'http://a.test/7',
    'http://a.test/8',
    'http://a.test/9',
  ]);
  assert.equal(network.list().entries, []);
});

s.run();
