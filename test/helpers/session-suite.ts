// The set-up most e2e suites share: the shared in-process server, the fixture server, one client
// and one session, created before the suite's first test and closed after its last.
import type { Test } from 'uvu';
import type { TestClient } from './client.ts';
import { type FixtureServer, fixtureServer } from './fixture-server.ts';
import { evaluate, readerOf } from './page.ts';
import { sharedServer, type TestServer } from './pagewire.ts';
import type { Observation } from './wire.ts';

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

/** Opens `path` in a new tab of the suite's session, the others left open: the target id. */
export async function openTab(context: SessionSuite, path: string): Promise<string> {
  const { client, sessionId, fixtures } = context;
  return (await client.call('tabs.new', { session_id: sessionId, url: fixtures.url(path) })).target_id;
}

/** Opens `path` in a new tab of the suite's session and closes every other tab: the target id. */
export async function openAlone(context: SessionSuite, path: string): Promise<string> {
  const { client, sessionId, fixtures } = context;
  const { tabs } = await client.call('tabs.list', { session_id: sessionId });
  const { target_id: targetId } = await client.call('tabs.new', { session_id: sessionId, url: fixtures.url(path) });
  for (const tab of tabs) await client.call('tabs.close', { session_id: sessionId, target_id: tab.target_id });
  return targetId;
}

/** `openAlone`, then the new tab's observation. */
export async function openAloneObserved(context: SessionSuite, path: string): Promise<Observation> {
  const targetId = await openAlone(context, path);
  return context.client.call('observe', { session_id: context.sessionId, target_id: targetId });
}

/**
 * The same as `openAlone`, for tests of the first look: once the page has loaded, and with its first looks read
 * by prefix whatever its size and probes (a small document would be read whole otherwise).
 */
export async function openForFirstLook(context: SessionSuite, path: string): Promise<string> {
  const targetId = await openAlone(context, path);
  const reader = readerOf(context.server, context.sessionId, targetId);
  reader.prefixFrom = 0;
  reader.elementsPerProbe = 0;
  await evaluate(
    context.server,
    targetId,
    "new Promise((resolve) => document.readyState === 'complete' ? resolve(true) : addEventListener('load', () => resolve(true), { once: true }))",
  );
  return targetId;
}
