// The set-up of suites that make sessions through a door under test (the SDK, POST /rpc) and
// watch them from a WebSocket client of their own: the shared server, the fixture server, that
// watcher, and the sessions to close after the suite's last test.
import type { Test } from 'uvu';
import type { TestClient } from './client.ts';
import { type FixtureServer, fixtureServer } from './fixture-server.ts';
import { sharedServer, type TestServer } from './pagewire.ts';

export interface WatchedSuite {
  server: TestServer;
  fixtures: FixtureServer;
  watcher: TestClient;
}

/** Fills the context in the suite's `before` and hands it to `ready`; `sessions` are closed in `after`. */
export function watchedSuite(s: Test, ready: (context: WatchedSuite) => void): { sessions: string[] } {
  const sessions: string[] = [];
  let watcher: TestClient | undefined;
  s.before(async () => {
    const server = await sharedServer();
    const fixtures = await fixtureServer();
    watcher = await server.connect();
    ready({ server, fixtures, watcher });
  });
  s.after(async () => {
    for (const id of sessions) await watcher?.call('session.close', { session_id: id }).catch(() => {});
    watcher?.close();
  });
  return { sessions };
}
