// The set-up most e2e suites share: the shared in-process server, the fixture server, one client
// and one session, created before the suite's first test and closed after its last.
import type { Test } from 'uvu';
import type { TestClient } from './client.ts';
import { type FixtureServer, fixtureServer } from './fixture-server.ts';
import { sharedServer, type TestServer } from './pagewire.ts';

export interface SessionSuite {
  server: TestServer;
  fixtures: FixtureServer;
  client: TestClient;
  sessionId: string;
}

/**
 * Fills the returned object in the suite's `before` (and hands it to `ready`, for suites that keep
 * their own variables) and closes its session in `after`.
 */
export function withSession(s: Test, name: string, ready?: (context: SessionSuite) => void): SessionSuite {
  const context = {} as SessionSuite;
  s.before(async () => {
    context.server = await sharedServer();
    context.fixtures = await fixtureServer();
    context.client = await context.server.connect();
    context.sessionId = (await context.client.call('session.create', { name })).session_id;
    ready?.(context);
  });
  s.after(async () => {
    await context.client.call('session.close', { session_id: context.sessionId });
    context.client.close();
  });
  return context;
}
