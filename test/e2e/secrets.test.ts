// Secrets typed by name (PROTOCOL.md §15) against real Chromium: a sign-in page that echoes the
// API token field into its text, its title, two attributes, the console and a request URL, and a
// partner widget on the other site name (a cross-site iframe). The value is found nowhere the
// server emits — replies, request_id replays, events, screenshots (masked pixels) and the
// server's own debug log — and a secret bound to one origin is never typed into another.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import process from 'node:process';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { parseConfig } from '../../src/config.ts';
import { type RunningServer, startServer } from '../../src/server.ts';
import { createLogger } from '../../src/util/log.ts';
import { runCli } from '../helpers/cli-process.ts';
import { TestClient } from '../helpers/client.ts';
import { type FixtureServer, fixtureServer } from '../helpers/fixture-server.ts';
import { refIn, textOf, type ToolResult, v2Http } from '../helpers/mcp.ts';
import { evaluate } from '../helpers/page.ts';
import type { TestServer } from '../helpers/pagewire.ts';
import { coloursIn, decodeBase64, decodePng } from '../helpers/png.ts';
import { onTeardown } from '../helpers/teardown.ts';
import { waitUntil } from '../helpers/wait.ts';
import { type ActResult, nextEvent, type Observation, ref } from '../helpers/wire.ts';

// Characters that change under URL, JSON and HTML encoding, so a leak in any form shows.
const TOKEN = `acme_live_7Kq/9x+Zp"w=${crypto.randomUUID().slice(0, 8)}`;
const PARTNER = `pk-partner-${crypto.randomUUID().slice(0, 12)}`;

const s = suite('secrets');

let fixtures: FixtureServer;
let server: TestServer;
let client: TestClient;
let sessionId: string;
/** Every text frame the server sent this client (replies and events, as they were on the wire). */
const frames: string[] = [];
/** Every line of the server's log, at debug level (the CDP trace included). */
const logLines: string[] = [];

// Every beginning of 4 characters and more is hidden too (a page that echoes each keystroke shows each prefix).
const forms = (value: string) => [value, encodeURIComponent(value), JSON.stringify(value).slice(1, -1), value.slice(0, 5)];

function assertNowhere(what: string, texts: readonly string[]): void {
  for (const value of [TOKEN, PARTNER]) {
    for (const form of forms(value)) {
      const leaks = texts.filter((text) => text.includes(form));
      assert.equal(leaks.slice(0, 2).map((text) => text.slice(0, 400)), [], `${what}: ${JSON.stringify(form)}`);
    }
  }
}

async function startWithLog(argv: string[], env: Record<string, string>): Promise<TestServer> {
  const config = parseConfig(['--port', '0', '--log-level', 'debug', ...argv], env);
  const log = createLogger({ level: 'debug', sink: (line) => logLines.push(line), redact: config.tokens });
  const running: RunningServer = await startServer(config, { runtime: `node ${process.version}`, log });
  onTeardown(() => running.close());
  const url = `${running.url}?token=${encodeURIComponent(config.tokens[0]!)}`;
  return { server: running, url, token: config.tokens[0]!, connect: () => TestClient.connect(url) };
}

s.before(async () => {
  fixtures = await fixtureServer();
  server = await startWithLog(['--secret', `ACME_TOKEN@${fixtures.origin}`, '--secret', `PARTNER_KEY@${fixtures.otherOrigin}`], {
    PAGEWIRE_SECRET_ACME_TOKEN: TOKEN,
    PAGEWIRE_SECRET_PARTNER_KEY: PARTNER,
  });
  client = await server.connect();
  client.socket.on('message', (data) => frames.push(data.toString()));
  sessionId = (await client.call('session.create', { name: 'vault' })).session_id;
  await client.call('events.subscribe', { session_id: sessionId, kinds: ['console', 'navigation', 'network'] });
});

s.after(() => client.close());

async function signIn(): Promise<{ target_id: string; observation: Observation }> {
  const { target_id } = await client.call('tabs.new', { session_id: sessionId, url: fixtures.url('/vault-signin.html') });
  // The partner widget is a cross-site iframe: its document comes a little later.
  await evaluate(
    server,
    target_id,
    `new Promise((resolve) => { const f = document.getElementById('partner'); if (f.contentDocument === null || f.dataset.loaded) resolve(true); f.addEventListener('load', () => resolve(true)); })`,
  );
  return { target_id, observation: await client.call('observe', { session_id: sessionId }) };
}

s('server.info names the secrets and their origins, never a value', async () => {
  const info = await client.call('server.info');
  assert.equal(info.secrets, [
    { name: 'ACME_TOKEN', origins: [fixtures.origin] },
    { name: 'PARTNER_KEY', origins: [fixtures.otherOrigin] },
  ]);
  assertNowhere('server.info', [JSON.stringify(info)]);
});

s('a secret typed into a page that echoes it everywhere: the page got it, nothing we emit shows it', async () => {
  const { target_id, observation: o } = await signIn();
  const typed = await client.call<ActResult>('act', {
    session_id: sessionId,
    state_id: o.state_id,
    action: 'type',
    ref: ref(o, 'API token'),
    secret: 'ACME_TOKEN',
    request_id: 'type-token',
  });
  assert.is(typed.status, 'completed', typed.error_text);
  // The page really has it, and put it in its text, title, attributes, console and a request.
  assert.is(await evaluate(server, target_id, `document.getElementById('token').value`), TOKEN);
  assert.is(await evaluate(server, target_id, 'document.title'), `Acme Cloud · ${TOKEN}`);
  assert.is(await evaluate(server, target_id, `document.getElementById('badge').getAttribute('aria-label')`), `token ${TOKEN}`);
  // One console line per keystroke; once the echo is 4 characters long it is hidden.
  await nextEvent(client, 'console', (event) => event.data.text === 'token changed to [redacted]');
  // The echo request is the page's fetch, still in flight when the console line comes.
  const reachedServer = () => fixtures.seen.some((r) => r.path.startsWith(`/api/echo/${encodeURIComponent(TOKEN)}`));
  await waitUntil(reachedServer, Boolean, { what: 'the echo request with the token in its path', intervalMs: 20 });
  const seen = await client.call<Observation>('observe', { session_id: sessionId, include_text: true });
  assert.match(seen.tree, /token: \[redacted\]/);
  assert.match(seen.title, /\[redacted\]/);
  const replay = await client.call<ActResult>('act', {
    session_id: sessionId,
    state_id: o.state_id,
    action: 'type',
    ref: ref(o, 'API token'),
    secret: 'ACME_TOKEN',
    request_id: 'type-token',
  });
  assert.is(replay.replayed, true);
  const { tabs } = await client.call('tabs.list', { session_id: sessionId });
  const { frames: frameList } = await client.call('frames.list', { session_id: sessionId });
  const { entries } = await client.call('network.list', { session_id: sessionId });
  // One request per keystroke: from the 4th on, the path shows [redacted] (a shorter beginning is not hidden).
  const echoed = entries.filter((e) => e.url.includes('/api/echo/')).map((e) => e.url.slice(e.url.indexOf('/api/echo/') + 10));
  assert.ok(echoed.length >= TOKEN.length, JSON.stringify(echoed));
  assert.ok(echoed.every((path) => path === '[redacted]' || path.length <= 3), JSON.stringify(echoed));
  assertNowhere('the act, its replay, observe, tabs, frames, network', [JSON.stringify([typed, replay, seen, tabs, frameList, entries])]);
});

s('the screenshot masks the field holding the secret and the element that echoes it, like a password', async () => {
  const { target_id } = await client.call('tabs.list', { session_id: sessionId }).then((r) => r.tabs.find((t) => t.selected)!);
  const boxes = await evaluate<Record<string, { x: number; y: number; width: number; height: number }>>(
    server,
    target_id,
    `Object.fromEntries(['token', 'preview', 'email', 'badge'].map((id) => { const r = document.getElementById(id).getBoundingClientRect(); return [id, { x: r.left, y: r.top, width: r.width, height: r.height }]; }))`,
  );
  const shot = await client.call('screenshot', { session_id: sessionId });
  const image = decodePng(decodeBase64(shot.data));
  // Inside the rounded corners (border-radius .375rem): their anti-aliased pixels are the page's.
  const inner = (r: { x: number; y: number; width: number; height: number }) => ({
    x: Math.ceil(r.x) + 7,
    y: Math.ceil(r.y) + 2,
    width: Math.floor(r.width) - 14,
    height: Math.floor(r.height) - 4,
  });
  for (const id of ['token', 'preview', 'badge']) {
    const colours = coloursIn(image, inner(boxes[id]!));
    assert.equal([...colours.keys()], ['0,0,0,255'], `${id} is one black box: ${JSON.stringify([...colours].slice(0, 4))}`);
  }
  assert.ok(coloursIn(image, inner(boxes['email']!)).size > 1, 'the email field is drawn as usual');
  // The masks are gone from the page afterwards.
  assert.is(await evaluate(server, target_id, `document.getElementById('preview').getAttribute('style')`), null);
});

s('a secret bound to one origin is refused on another, in a cross-site iframe too; nothing is typed', async () => {
  const { target_id, observation: o } = await signIn();
  // ACME_TOKEN belongs to 127.0.0.1: the partner's field lives on localhost.
  const refused = await client.call<ActResult>('act', {
    session_id: sessionId,
    state_id: o.state_id,
    action: 'fill',
    ref: ref(o, 'Partner key'),
    secret: 'ACME_TOKEN',
  });
  assert.is(refused.status, 'action_failed');
  assert.is(refused.error_type, 'forbidden');
  assert.is(refused.execution, 'not_dispatched');
  assert.match(
    refused.error_text ?? '',
    /ACME_TOKEN may only be typed into http:\/\/127\.0\.0\.1:\d+; this field's document is http:\/\/localhost:\d+: nothing was typed/,
  );
  // PARTNER_KEY belongs to localhost: refused on the page, typed in the partner's frame.
  let now = await client.call<Observation>('observe', { session_id: sessionId });
  const wrongPage = await client.call<ActResult>('act', {
    session_id: sessionId,
    state_id: now.state_id,
    action: 'type',
    ref: ref(now, 'API token'),
    secret: 'PARTNER_KEY',
  });
  assert.is(wrongPage.error_type, 'forbidden');
  assert.is(await evaluate(server, target_id, `document.getElementById('token').value`), '', 'nothing reached the page field');
  now = await client.call<Observation>('observe', { session_id: sessionId, include_text: true });
  assert.match(now.text ?? '', /nothing yet/, 'the partner field got nothing either');
  const partner = await client.call<ActResult>('act', {
    session_id: sessionId,
    state_id: now.state_id,
    action: 'type',
    ref: ref(now, 'Partner key'),
    secret: 'PARTNER_KEY',
  });
  assert.is(partner.status, 'completed', partner.error_text);
  assert.match(partner.fresh_state?.tree ?? '', /partner got \[redacted\]/);
  assertNowhere('the refusals and the partner act', [JSON.stringify([refused, wrongPage, partner])]);
});

s('an unknown secret, or text and secret together, are invalid_params: nothing is consumed', async () => {
  const o = await client.call<Observation>('observe', { session_id: sessionId });
  const unknown = await client.callError('act', {
    session_id: sessionId,
    state_id: o.state_id,
    action: 'type',
    ref: o.elements[0]!.ref,
    secret: 'NO_SUCH',
  });
  assert.is(unknown.data.error_type, 'invalid_params');
  assert.match(unknown.message, /no secret NO_SUCH/);
  assert.match(unknown.message, /ACME_TOKEN, PARTNER_KEY/);
  const both = await client.callError('act', {
    session_id: sessionId,
    state_id: o.state_id,
    action: 'fill',
    ref: o.elements[0]!.ref,
    text: 'x',
    secret: 'ACME_TOKEN',
  });
  assert.is(both.data.error_type, 'invalid_params');
  // The state was not consumed by either.
  const ok = await client.call<ActResult>('act', { session_id: sessionId, state_id: o.state_id, action: 'scroll', delta_y: 10 });
  assert.is.not(ok.status, 'stale_observation');
});

s('the CLI types a secret by name (pagewire fill REF --secret NAME) and prints nothing of it', async () => {
  const cliState = mkdtempSync(join(tmpdir(), 'pagewire-cli-secret-'));
  onTeardown(() => rmSync(cliState, { recursive: true, force: true }));
  const env = { PAGEWIRE_URL: server.url, XDG_STATE_HOME: cliState };
  const opened = await runCli(['open', fixtures.url('/vault-signin.html'), '--session', sessionId], env);
  assert.is(opened.code, 0, opened.stderr);
  // Siblings of one role share a line of the tree: `textbox "Email address" @9 "API token" @10 …`.
  const token = /"API token" (@\d+)/.exec(opened.stdout)?.[1];
  assert.ok(token, opened.stdout);
  const filled = await runCli(['fill', token!, '--secret', 'ACME_TOKEN', '--session', sessionId], env);
  assert.is(filled.code, 0, filled.stdout + filled.stderr);
  const { target_id } = (await client.call('tabs.list', { session_id: sessionId })).tabs.find((t) => t.selected)!;
  assert.is(await evaluate(server, target_id, `document.getElementById('token').value`), TOKEN);
  const both = await runCli(['fill', token!, 'text', '--secret', 'ACME_TOKEN', '--session', sessionId], env);
  assert.is(both.code, 2, 'a usage error');
  assertNowhere('CLI output', [opened.stdout, opened.stderr, filled.stdout, filled.stderr]);
});

s('over MCP: browser_act types the secret by name; no tool result, event or log line of the MCP door holds it', async () => {
  const door = await v2Http(`${server.server.mcpUrl}?token=${encodeURIComponent(server.token)}`);
  onTeardown(() => door.close());
  const results: ToolResult[] = [];
  const call = async (name: string, args: Record<string, unknown> = {}) => {
    const result = await door.call(name, args);
    results.push(result);
    return result;
  };
  const opened = await call('browser_tabs', { action: 'new', url: fixtures.url('/vault-signin.html') });
  assert.is(opened.isError, false, textOf(opened));
  const observed = await call('browser_observe');
  const typed = await call('browser_act', {
    state_id: observed.structuredContent!['state_id'],
    action: 'type',
    ref: refIn(String(observed.structuredContent!['tree']), 'API token'),
    secret: 'ACME_TOKEN',
  });
  assert.is(typed.structuredContent!['status'], 'completed', textOf(typed));
  const { tabs } = await client.call('tabs.list', { session_id: sessionId });
  assert.ok(tabs.length > 0);
  // The page has it and echoes it; the MCP door shows none of it.
  const text = await call('browser_observe', { include_text: true });
  assert.match(textOf(text), /\[redacted\]/);
  await call('browser_events');
  await call('browser_screenshot');
  assertNowhere('MCP tool results', results.map((result) => JSON.stringify(result)));
});

s('nothing the server sent or logged holds the values: every frame on the wire, every log line (the debug CDP trace too)', () => {
  assert.ok(frames.length > 20, `frames captured (${frames.length})`);
  assert.ok(logLines.length > 200, `debug lines captured (${logLines.length})`);
  assert.ok(logLines.some((line) => line.includes('Input.dispatchKeyEvent')), 'the keystrokes are in the trace (as [redacted])');
  assertNowhere('wire frames', frames);
  assertNowhere('log lines', logLines);
  // Keystrokes one character at a time would spell it out: none carries its text or key codes.
  const keys = logLines.filter((line) => line.includes('Input.dispatchKeyEvent') && line.includes('"type":"keyDown"'));
  assert.ok(keys.length >= TOKEN.length, `${keys.length} keyDown lines`);
  assert.ok(keys.every((line) => line.includes('"text":"[redacted]"') && !/KeyCode":\d/.test(line)), keys[0]);
});

s.run();
