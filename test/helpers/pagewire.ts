// Starts pagewire servers in-process for tests: a shared one (one browser for the whole run) and
// private ones for tests that need their own flags. All are closed at the end of the run.
import process from 'node:process';
import { parseConfig } from '../../src/config.ts';
import { readTextFile } from '../../src/runtime/text-files.ts';
import { type RunningServer, startServer } from '../../src/server.ts';
import { TestClient } from './client.ts';
import { onTeardown } from './teardown.ts';

export interface TestServer {
  server: RunningServer;
  /** The URL a client connects to, with the token. */
  url: string;
  token: string;
  connect(): Promise<TestClient>;
}

function runtime(): string {
  const deno = (globalThis as { Deno?: { version: { deno: string } } }).Deno;
  return deno ? `deno ${deno.version.deno}` : `node ${process.version}`;
}

/** A private server with extra flags (port 0 and a fixed token unless given). */
export async function startTestServer(argv: string[] = [], env: Record<string, string> = {}): Promise<TestServer> {
  const hasToken = argv.includes('--token') || argv.includes('--no-auth');
  const token = 'test-token-' + crypto.randomUUID();
  const config = parseConfig(['--port', '0', ...(hasToken ? [] : ['--token', token]), ...argv], env, { readFile: readTextFile });
  const server = await startServer(config, { runtime: runtime() });
  onTeardown(() => server.close());
  const first = config.tokens[0] ?? '';
  const url = config.noAuth ? server.url : `${server.url}?token=${encodeURIComponent(first)}`;
  return { server, url, token: first, connect: () => TestClient.connect(url) };
}

let shared: Promise<TestServer> | undefined;

/** The run's shared server: tests must create their own sessions and leave others alone. */
export function sharedServer(): Promise<TestServer> {
  shared ??= startTestServer();
  return shared;
}
