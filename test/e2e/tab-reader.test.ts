// A tab's reading state belongs to the tab (TabReader, owned by its session) and its counters to
// the server that read it: two servers in one process count their own reads, and a closed tab's
// reads and closed-root marks are released with it.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { TestClient } from '../helpers/client.ts';
import { fixtureServer } from '../helpers/fixture-server.ts';
import { readerOf } from '../helpers/page.ts';
import { startTestServer, type TestServer } from '../helpers/pagewire.ts';
import type { ServerDiagnostics } from '../helpers/wire.ts';

const s = suite('tab reader');

/** Reads of any kind: each observed frame counts once as full, patched or reused. */
const frameReads = (counts: Pick<ServerDiagnostics, 'frame_reads_full' | 'frame_reads_patched' | 'frame_reads_reused'>) =>
  counts.frame_reads_full + counts.frame_reads_patched + counts.frame_reads_reused;

async function openAndObserve(server: TestServer, path: string, times: number) {
  const fixtures = await fixtureServer();
  const client = await server.connect();
  const { session_id: sessionId } = await client.call('session.create', { name: 'reader' });
  const { target_id: targetId } = await client.call('tabs.new', { session_id: sessionId, url: fixtures.url(path) });
  for (let i = 0; i < times; i++) await client.call('observe', { session_id: sessionId, target_id: targetId });
  return { client, sessionId, targetId };
}

s('two servers in one process each count their own frame reads in server.info', async () => {
  const [a, b] = await Promise.all([startTestServer(), startTestServer()]);
  const onA = await openAndObserve(a, '/login.html', 1);
  const countsA = (await onA.client.call('server.info')).diagnostics;
  assert.ok(countsA.frame_reads_full >= 1, 'server A read its page');

  const onB = await openAndObserve(b, '/login.html', 3);
  const countsB = (await onB.client.call('server.info')).diagnostics;
  assert.ok(frameReads(countsB) >= 3, 'server B counts its three observations');
  const againA = (await onA.client.call('server.info')).diagnostics;
  assert.is(frameReads(againA), frameReads(countsA), "server B's reads are not in server A's counts");
  assert.is(againA.snapshots_full, countsA.snapshots_full, "server B's snapshots are not in server A's counts");

  // Per tab: B observed one tab, whose reader counts exactly what the server counted.
  const ofTab = readerOf(b, onB.sessionId, onB.targetId).counts.snapshot();
  assert.is(ofTab.frameReadsFull + ofTab.frameReadsPatched + ofTab.frameReadsReused, frameReads(countsB));
  onA.client.close();
  onB.client.close();
});

s('server.info counts each open tab of the caller apart (diagnostics.tab_reads), as its reads were', async () => {
  const server = await startTestServer(['--token', 'reader-alice-token', '--token', 'reader-bob-token']);
  const first = await openAndObserve(server, '/login.html', 1);
  const { client, sessionId } = first;
  const fixtures = await fixtureServer();
  const { target_id: second } = await client.call('tabs.new', { session_id: sessionId, url: fixtures.url('/incremental.html') });
  for (let i = 0; i < 4; i++) await client.call('observe', { session_id: sessionId, target_id: second });
  const { diagnostics: counts } = await client.call('server.info');
  const byTab = new Map(counts.tab_reads.map((entry) => [entry.target_id, entry]));
  assert.equal([...byTab.keys()].sort(), [first.targetId, second].sort(), 'one entry per open tab');
  for (const targetId of [first.targetId, second]) {
    const own = readerOf(server, sessionId, targetId).counts.snapshot();
    const wire = byTab.get(targetId)!;
    assert.equal(
      [wire.frame_reads_full, wire.frame_reads_patched, wire.frame_reads_reused, wire.snapshots_full, wire.snapshots_kept],
      [own.frameReadsFull, own.frameReadsPatched, own.frameReadsReused, own.snapshotsFull, own.snapshotsKept],
      `${targetId}: the tab's own counters`,
    );
  }
  const firstReads = frameReads(byTab.get(first.targetId)!);
  const secondReads = frameReads(byTab.get(second)!);
  assert.ok(firstReads >= 1 && secondReads >= 4, `each tab counts its own observations (${firstReads}, ${secondReads})`);
  assert.ok(secondReads > firstReads, 'the tab observed more often counts more reads');
  assert.is(firstReads + secondReads, frameReads(counts), "the server's reads are its tabs' reads");
  const other = await TestClient.connect(`${server.server.url}?token=reader-bob-token`);
  assert.equal((await other.call('server.info')).diagnostics.tab_reads, [], "another principal's tabs are not listed");
  other.close();
  await client.call('tabs.close', { session_id: sessionId, target_id: second });
  const after = (await client.call('server.info')).diagnostics;
  assert.equal(after.tab_reads.map((entry) => entry.target_id), [first.targetId], 'a closed tab is no longer listed');
  client.close();
});

s("a closed tab's reader is disposed and holds no reads or closed-root marks", async () => {
  const a = await startTestServer();
  const { client, sessionId, targetId } = await openAndObserve(a, '/login.html', 1);
  const reader = readerOf(a, sessionId, targetId);
  // A read is kept once every frame's monitor answered (a frame still loading may not yet).
  for (let i = 0; i < 20 && reader.sizes().reads === 0; i++) await client.call('observe', { session_id: sessionId, target_id: targetId });
  const held = reader.sizes();
  assert.is(held.reads, 1, 'the last read of the main frame is kept');
  assert.ok(held.watchedMonitors >= 1, "the page's closed shadow roots are marked watched");
  await client.call('tabs.close', { session_id: sessionId, target_id: targetId });
  assert.ok(reader.disposed, 'the reader is disposed with its tab');
  assert.equal(reader.sizes(), { reads: 0, watchedMonitors: 0 });
  const { tabs } = await client.call('tabs.list', { session_id: sessionId });
  assert.ok(!tabs.some((tab) => tab.target_id === targetId));
  client.close();
});

s.run();
