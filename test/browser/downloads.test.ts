// DownloadTracker against a scripted CDP peer: Browser.download* events (sent without a sessionId,
// as Chromium does) become per-session records and `download` events; completed files are
// renamed and cancelled ones cleaned up through DownloadFiles (an in-memory fake here).
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { downloadData, type DownloadFiles, type DownloadOwner, type DownloadRecord, DownloadTracker } from '../../src/browser/downloads.ts';
import { Connection } from '../../src/cdp/connection.ts';
import { FakeCdpPeer } from '../helpers/fake-cdp.ts';

/** A folder tree in memory: Chromium "writes" `<folder>/<guid>`, finish() renames like the runtime does. */
class MemoryFiles implements DownloadFiles {
  readonly files = new Set<string>();
  readonly discarded: string[] = [];
  failFinish = false;
  /** When set, finish() waits for it (to see what happens meanwhile). */
  gate: Promise<void> | undefined;

  async finish(folder: string, guid: string, suggestedFilename: string): Promise<string> {
    await this.gate;
    if (this.failFinish) throw new Error('disk full');
    const source = `${folder}/${guid}`;
    if (!this.files.has(source)) throw new Error(`no file ${source}`);
    const dot = suggestedFilename.lastIndexOf('.');
    const stem = dot > 0 ? suggestedFilename.slice(0, dot) : suggestedFilename;
    const ext = dot > 0 ? suggestedFilename.slice(dot) : '';
    for (let n = 0;; n++) {
      const target = `${folder}/${n === 0 ? stem : `${stem} (${n})`}${ext}`;
      if (this.files.has(target)) continue;
      this.files.delete(source);
      this.files.add(target);
      return target;
    }
  }

  async discard(folder: string, guid: string): Promise<void> {
    this.discarded.push(`${folder}/${guid}`);
    this.files.delete(`${folder}/${guid}`);
    this.files.delete(`${folder}/${guid}.crdownload`);
  }
}

const OWNERS: Record<string, DownloadOwner> = {
  F1: { sessionKey: 's1', targetId: 'T1', browserContextId: 'C1', folder: '/dl/s1' },
  F1child: { sessionKey: 's1', targetId: 'T1', browserContextId: 'C1', folder: '/dl/s1' },
  F2: { sessionKey: 's2', targetId: 'T2', browserContextId: 'C2', folder: '/dl/s2' },
};

function setup(options: { historyLimit?: number; onError?: (error: unknown, record: DownloadRecord) => void } = {}) {
  const peer = new FakeCdpPeer();
  peer.answer('Browser.cancelDownload', () => ({ result: {} }));
  peer.answer('Browser.getVersion', () => ({ result: { product: 'Fake/1' } }));
  const connection = new Connection(peer);
  const files = new MemoryFiles();
  const tracker = new DownloadTracker({
    root: connection.root,
    resolveOwner: (frameId) => OWNERS[frameId],
    files,
    ...options,
  });
  const seen: Array<{ sessionKey: string; record: DownloadRecord }> = [];
  tracker.events.on('download', (event) => seen.push(event));
  const willBegin = (guid: string, frameId = 'F1', suggestedFilename = 'report.txt') =>
    peer.emit('Browser.downloadWillBegin', {
      frameId,
      guid,
      url: `http://127.0.0.1:1/download/${suggestedFilename}?token=abc#x`,
      suggestedFilename,
    });
  const progress = (
    guid: string,
    state: 'inProgress' | 'completed' | 'canceled',
    receivedBytes: number,
    totalBytes: number,
    extra: Record<string, unknown> = {},
  ) => peer.emit('Browser.downloadProgress', { guid, state, receivedBytes, totalBytes, ...extra });
  /** Chromium wrote the finished file as `<folder>/<guid>` (the progress event then says completed). */
  const complete = (guid: string, folder = '/dl/s1', bytes = 12) => {
    files.files.add(`${folder}/${guid}`);
    progress(guid, 'completed', bytes, bytes, { filePath: `${folder}/${guid}` });
  };
  return { peer, connection, files, tracker, seen, willBegin, progress, complete };
}

/**
 * Inbound CDP messages are routed one per task, in order: a round trip queued behind the events
 * returns once they have all been dispatched. Then any file work they started.
 */
async function settle(connection: Connection, tracker?: DownloadTracker): Promise<void> {
  await connection.root.send('Browser.getVersion');
  await tracker?.whenIdle();
}

const states = (seen: Array<{ record: DownloadRecord }>) => seen.map((e) => `${e.record.guid}:${e.record.state}`);

const s = suite('DownloadTracker');

s("downloadWillBegin → a started record of the frame's session and tab, and one event", async () => {
  const { connection, tracker, seen, willBegin } = setup();
  willBegin('g1', 'F1child');
  await settle(connection);
  assert.equal(seen.length, 1);
  assert.is(seen[0]!.sessionKey, 's1');
  assert.equal(seen[0]!.record, {
    guid: 'g1',
    url: 'http://127.0.0.1:1/download/report.txt?token=abc#x',
    suggested_filename: 'report.txt',
    state: 'started',
    received_bytes: 0,
    total_bytes: 0,
    target_id: 'T1',
    frame_id: 'F1child',
    session_key: 's1',
  });
  assert.equal(tracker.list('s1').map((r) => r.guid), ['g1']);
  assert.equal(tracker.list('s2'), []);
  assert.is(tracker.get('g1')?.state, 'started');
});

s('downloadProgress inProgress → in_progress with the bytes; a repeat that changes nothing is not re-emitted', async () => {
  const { connection, tracker, seen, willBegin, progress } = setup();
  willBegin('g1');
  progress('g1', 'inProgress', 0, 0);
  progress('g1', 'inProgress', 12, 0);
  progress('g1', 'inProgress', 12, 0);
  progress('g1', 'inProgress', 12, 12);
  await settle(connection);
  assert.equal(states(seen), ['g1:started', 'g1:in_progress', 'g1:in_progress', 'g1:in_progress']);
  assert.equal(
    seen.map((e) => [e.record.received_bytes, e.record.total_bytes]),
    [[0, 0], [0, 0], [12, 0], [12, 12]],
  );
  assert.is(tracker.list('s1')[0]!.received_bytes, 12);
});

s('completed → reported once the file has its final name; namesakes get " (1)"; later events are ignored', async () => {
  const { connection, tracker, files, seen, willBegin, progress, complete } = setup();
  willBegin('g1');
  progress('g1', 'inProgress', 12, 12);
  complete('g1');
  willBegin('g2');
  complete('g2');
  await settle(connection, tracker);
  progress('g1', 'inProgress', 99, 99); // after the end: nothing
  await settle(connection, tracker);
  const done = seen.filter((e) => e.record.state === 'completed').map((e) => e.record);
  assert.equal(done.map((r) => r.path), ['/dl/s1/report.txt', '/dl/s1/report (1).txt']);
  assert.equal(done.map((r) => [r.received_bytes, r.total_bytes]), [[12, 12], [12, 12]]);
  assert.equal([...files.files].sort(), ['/dl/s1/report (1).txt', '/dl/s1/report.txt']);
  assert.equal(tracker.list('s1').map((r) => `${r.state}:${r.path}`), ['completed:/dl/s1/report.txt', 'completed:/dl/s1/report (1).txt']);
  assert.equal(states(seen), ['g1:started', 'g1:in_progress', 'g1:completed', 'g2:started', 'g2:completed']);
});

s('the completed event waits for the rename: until then the record says in_progress and has no path', async () => {
  const { connection, tracker, files, seen, willBegin, complete } = setup();
  let open!: () => void;
  files.gate = new Promise<void>((resolve) => (open = resolve));
  willBegin('g1');
  complete('g1');
  await settle(connection);
  assert.equal(states(seen), ['g1:started']);
  assert.is(tracker.list('s1')[0]!.path, undefined);
  open();
  await settle(connection, tracker);
  assert.equal(states(seen), ['g1:started', 'g1:completed']);
  assert.is(seen[1]!.record.path, '/dl/s1/report.txt');
});

s('a rename that fails still reports completed, with the path Chromium left the file at, and tells onError', async () => {
  const errors: string[] = [];
  const { connection, tracker, files, seen, willBegin, complete } = setup({
    onError: (error, record) => errors.push(`${record.guid}: ${(error as Error).message}`),
  });
  files.failFinish = true;
  willBegin('g1');
  complete('g1');
  await settle(connection, tracker);
  assert.is(seen.at(-1)!.record.state, 'completed');
  assert.is(seen.at(-1)!.record.path, '/dl/s1/g1');
  assert.equal(errors, ['g1: disk full']);
});

s("canceled → reported at once, and <guid> and <guid>.crdownload of the owner's folder are removed", async () => {
  const { connection, tracker, files, seen, willBegin, progress } = setup();
  willBegin('g1', 'F2', 'big.bin');
  progress('g1', 'inProgress', 20_000, 100_000);
  files.files.add('/dl/s2/g1.crdownload');
  progress('g1', 'canceled', 0, 100_000);
  await settle(connection, tracker);
  assert.equal(states(seen), ['g1:started', 'g1:in_progress', 'g1:canceled']);
  assert.equal(seen.map((e) => e.sessionKey), ['s2', 's2', 's2']);
  assert.equal(files.discarded, ['/dl/s2/g1']);
  assert.equal([...files.files], []);
  assert.is(tracker.list('s2')[0]!.state, 'canceled');
  assert.is(tracker.list('s2')[0]!.path, undefined);
});

s('a deny-style download (willBegin, then canceled at once) is started then canceled', async () => {
  const { connection, tracker, seen, willBegin, progress } = setup();
  willBegin('g1');
  progress('g1', 'inProgress', 0, 0);
  progress('g1', 'canceled', 0, 0);
  await settle(connection, tracker);
  assert.equal(states(seen), ['g1:started', 'g1:in_progress', 'g1:canceled']);
});

s('a frame no session owns: no record, no event, its progress is ignored and no file is touched', async () => {
  const { connection, tracker, files, seen, willBegin, progress, complete } = setup();
  willBegin('gx', 'UNKNOWN');
  progress('gx', 'inProgress', 1, 2);
  complete('gx');
  progress('never-began', 'canceled', 0, 0);
  await settle(connection, tracker);
  assert.equal(seen, []);
  assert.equal(tracker.list('s1'), []);
  assert.is(tracker.get('gx'), undefined);
  assert.equal(files.discarded, []);
  assert.ok(files.files.has('/dl/s1/gx'));
});

s('a repeated downloadWillBegin for a known guid changes nothing', async () => {
  const { connection, tracker, seen, willBegin } = setup();
  willBegin('g1');
  willBegin('g1', 'F2');
  await settle(connection);
  assert.equal(states(seen), ['g1:started']);
  assert.equal(tracker.list('s2'), []);
});

s('list keeps the last 200 per session; an evicted download that is still running is still finished', async () => {
  const { connection, tracker, seen, willBegin, complete } = setup();
  for (let i = 0; i < 205; i++) willBegin(`a${i}`, 'F1', `f${i}.txt`);
  willBegin('b0', 'F2');
  await settle(connection);
  const list = tracker.list('s1');
  assert.is(list.length, 200);
  assert.is(list[0]!.guid, 'a5');
  assert.is(list.at(-1)!.guid, 'a204');
  assert.equal(tracker.list('s2').map((r) => r.guid), ['b0']);
  complete('a0'); // evicted from the list, still running
  await settle(connection, tracker);
  const last = seen.at(-1)!.record;
  assert.equal([last.guid, last.state, last.path], ['a0', 'completed', '/dl/s1/f0.txt']);
  assert.is(tracker.list('s1').length, 200);
});

s('historyLimit is configurable', async () => {
  const { connection, tracker, willBegin } = setup({ historyLimit: 2 });
  willBegin('g1');
  willBegin('g2');
  willBegin('g3');
  await settle(connection);
  assert.equal(tracker.list('s1').map((r) => r.guid), ['g2', 'g3']);
});

s("cancel(guid) sends Browser.cancelDownload with the owner's browserContextId; unknown or finished guids are refused", async () => {
  const { connection, peer, tracker, willBegin, complete } = setup();
  willBegin('g1', 'F2');
  willBegin('g2');
  await settle(connection);
  assert.ok(await tracker.cancel('g1'));
  assert.equal(peer.lastSent('Browser.cancelDownload')?.params, { guid: 'g1', browserContextId: 'C2' });
  assert.is(peer.lastSent('Browser.cancelDownload')?.sessionId, undefined);
  assert.not.ok(await tracker.cancel('nope'));
  complete('g2');
  await settle(connection, tracker);
  assert.not.ok(await tracker.cancel('g2'));
  assert.is(peer.sent.filter((m) => m.method === 'Browser.cancelDownload').length, 1);
});

s('forget(session) drops its history; dispose() stops listening', async () => {
  const { connection, tracker, seen, willBegin } = setup();
  willBegin('g1');
  willBegin('g2', 'F2');
  await settle(connection);
  tracker.forget('s1');
  assert.equal(tracker.list('s1'), []);
  assert.is(tracker.list('s2').length, 1);
  tracker.dispose();
  willBegin('g3');
  await settle(connection);
  assert.is(seen.length, 2);
  assert.is(tracker.get('g3'), undefined);
});

s('downloadData is the §9 data: URL redacted, no owner fields, path only when there is one', () => {
  const record: DownloadRecord = {
    guid: 'g1',
    url: 'https://user:pw@example.com/files/a.pdf?sig=secret#frag',
    suggested_filename: 'a.pdf',
    state: 'in_progress',
    received_bytes: 5,
    total_bytes: 10,
    target_id: 'T1',
    frame_id: 'F1',
    session_key: 's1',
  };
  assert.equal(downloadData(record), {
    guid: 'g1',
    url: 'https://example.com/files/a.pdf',
    suggested_filename: 'a.pdf',
    state: 'in_progress',
    received_bytes: 5,
    total_bytes: 10,
  });
  assert.is(downloadData({ ...record, state: 'completed', path: '/dl/s1/a.pdf' })['path'], '/dl/s1/a.pdf');
});

s.run();
